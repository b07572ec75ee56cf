package meta

// MonitorOwner is who a monitor acts as when it runs: the principal that
// last created or updated it (and so had its query checked with its own
// rights). Each run reads with that principal's rights as they are then.
type MonitorOwner struct {
	// Kind is TokenAPI (TokenID names the token, whose current
	// capabilities apply) or TokenPersonal (UserID names the user, whose
	// current membership and role in the org apply).
	Kind    string `json:"kind"`
	TokenID string `json:"tokenId,omitempty"`
	UserID  string `json:"userId,omitempty"`
}
