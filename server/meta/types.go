package meta

import (
	"encoding/json"
	"time"
)

// The record types below are stored as JSON and served as-is: their JSON
// tags are exactly the key sets the official clients accept under strict
// decoding (shared/spec/clients.md §1.4). Times are kept in UTC so every
// response renders them with a "Z".

// Org is an organization.
type Org struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Slug          string    `json:"slug"`
	Plan          string    `json:"plan"`
	PlanCreated   time.Time `json:"planCreated"`
	LastUsageSync time.Time `json:"lastUsageSync"`
	Role          string    `json:"role"`
	PrimaryEmail  string    `json:"primaryEmail"`
	License       License   `json:"license"`
	PaymentStatus string    `json:"paymentStatus"`
	MetaCreated   time.Time `json:"metaCreated"`
	MetaModified  time.Time `json:"metaModified"`
	MetaVersion   string    `json:"metaVersion"`
	ExternalPlan  ExtPlan   `json:"externalPlan"`
}

// ExtPlan is the billing plan an org is on; aplite has one, always active.
type ExtPlan struct {
	State             string    `json:"state"`
	EndingBefore      time.Time `json:"endingBefore"`
	NextBillingDate   time.Time `json:"nextBillingDate"`
	StartingOn        time.Time `json:"startingOn"`
	TrialEndingBefore time.Time `json:"trialEndingBefore"`
	PlanID            string    `json:"planID"`
	PlanInstanceID    string    `json:"planInstanceID"`
	Trialed           bool      `json:"trialed"`
}

// License carries an org's quotas. APIRateLimitPerSecond, IngestLimitPerSecond
// and QueryLimitPerSecond are enforced by the server (0 = unlimited).
type License struct {
	ID                    string         `json:"id"`
	Issuer                string         `json:"issuer"`
	IssuedTo              string         `json:"issuedTo"`
	IssuedAt              time.Time      `json:"issuedAt"`
	ValidFrom             time.Time      `json:"validFrom"`
	ExpiresAt             time.Time      `json:"expiresAt"`
	Tier                  string         `json:"tier"`
	APIRateLimitPerSecond int64          `json:"apiRateLimitPerSecond"`
	IngestLimitPerSecond  int64          `json:"ingestRequestsPerSecond"`
	QueryLimitPerSecond   int64          `json:"queryRequestsPerSecond"`
	MonthlyIngestGB       uint64         `json:"monthlyIngestGb"`
	MonthlyQueryGBHours   uint64         `json:"monthlyQueryGbHours"`
	StorageAllowanceGB    uint64         `json:"storageAllowanceGB"`
	MaxUsers              uint64         `json:"maxUsers"`
	MaxFields             uint64         `json:"maxFields"`
	MaxDatasets           uint64         `json:"maxDatasets"`
	MaxMonitors           uint64         `json:"maxMonitors"`
	MaxEndpoints          uint64         `json:"maxEndpoints"`
	MaxQueryWindowSeconds uint64         `json:"maxQueryWindowSeconds"`
	MaxAuditWindowSeconds uint64         `json:"maxAuditWindowSeconds"`
	WithRBAC              bool           `json:"withRBAC"`
	WithAuths             []string       `json:"withAuths"`
	Features              map[string]any `json:"features"`
	Error                 string         `json:"error"`
}

// Role is a user's role as embedded in a User.
type Role struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// User is a person with an account.
type User struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  Role   `json:"role"`
}

// DatasetCaps are the actions an API token may take on one dataset (or on
// every dataset, under the key "*"). Nil slices stay null so a token reads
// back exactly as it was created.
type DatasetCaps struct {
	Ingest         []string `json:"ingest"`
	Query          []string `json:"query"`
	StarredQueries []string `json:"starredQueries"`
	VirtualFields  []string `json:"virtualFields"`
	Trim           []string `json:"trim"`
	Vacuum         []string `json:"vacuum"`
	Data           []string `json:"data"`
	Share          []string `json:"share"`
}

// OrgCaps are the actions an API token may take on org-wide resources.
type OrgCaps struct {
	Annotations      []string `json:"annotations,omitempty"`
	APITokens        []string `json:"apiTokens,omitempty"`
	AuditLog         []string `json:"auditLog,omitempty"`
	Billing          []string `json:"billing,omitempty"`
	Dashboards       []string `json:"dashboards,omitempty"`
	Datasets         []string `json:"datasets,omitempty"`
	Endpoints        []string `json:"endpoints,omitempty"`
	Flows            []string `json:"flows,omitempty"`
	Integrations     []string `json:"integrations,omitempty"`
	Monitors         []string `json:"monitors,omitempty"`
	Notifiers        []string `json:"notifiers,omitempty"`
	RBAC             []string `json:"rbac,omitempty"`
	SharedAccessKeys []string `json:"sharedAccessKeys,omitempty"`
	Users            []string `json:"users,omitempty"`
	Views            []string `json:"views,omitempty"`
}

// APIToken is the public view of an API token.
type APIToken struct {
	ID                  string                 `json:"id"`
	Name                string                 `json:"name"`
	Description         string                 `json:"description"`
	ExpiresAt           time.Time              `json:"expiresAt"`
	DatasetCapabilities map[string]DatasetCaps `json:"datasetCapabilities"`
	OrgCapabilities     OrgCaps                `json:"orgCapabilities"`
	SAMLAuthenticated   bool                   `json:"samlAuthenticated"`
}

// Token kinds.
const (
	TokenAPI      = "api"      // xaat-: scoped by capabilities
	TokenPersonal = "personal" // xapt-: acts for its user
)

// TokenRecord is a stored token: its public view plus what only the server
// sees. The secret itself is never stored, only its SHA-256.
type TokenRecord struct {
	APIToken
	Kind   string    `json:"kind"`
	Hash   string    `json:"hash"`
	UserID string    `json:"userId"`
	OrgID  string    `json:"orgId"`
	Issued time.Time `json:"issued"`
}

// Annotation marks a moment (or span) on the charts of some datasets.
type Annotation struct {
	ID          string     `json:"id"`
	Datasets    []string   `json:"datasets"`
	Time        time.Time  `json:"time"`
	EndTime     *time.Time `json:"endTime"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	URL         string     `json:"url"`
	Type        string     `json:"type"`
}

// Group is an RBAC group.
type Group struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	IsManaged   bool     `json:"isManaged"`
	Members     []string `json:"members"`
	Roles       []string `json:"roles"`
}

// VirtualField is a named APL expression evaluated at query time.
type VirtualField struct {
	Dataset     string `json:"dataset"`
	Name        string `json:"name"`
	Expression  string `json:"expression"`
	Description string `json:"description,omitempty"`
	Type        string `json:"type,omitempty"`
	Unit        string `json:"unit,omitempty"`
	ID          string `json:"id"`
}

// StarredQuery is a saved APL query.
type StarredQuery struct {
	ID       string          `json:"id"`
	Kind     string          `json:"kind"`
	Name     string          `json:"name"`
	Who      string          `json:"who"`
	Dataset  string          `json:"dataset,omitempty"`
	Query    json.RawMessage `json:"query"`
	Metadata map[string]any  `json:"metadata"`
}

// Monitor is an alerting rule. Interval and range are in minutes and the
// delay in seconds, as the clients send them.
type Monitor struct {
	ID                           string    `json:"id"`
	CreatedAt                    time.Time `json:"createdAt"`
	CreatedBy                    string    `json:"createdBy"`
	UpdatedAt                    time.Time `json:"updatedAt"`
	Name                         string    `json:"name"`
	Type                         string    `json:"type"`
	Description                  string    `json:"description"`
	APLQuery                     string    `json:"aplQuery"`
	MPLQuery                     string    `json:"mplQuery,omitempty"`
	Operator                     string    `json:"operator"`
	Threshold                    float64   `json:"threshold"`
	AlertOnNoData                bool      `json:"alertOnNoData"`
	NotifyByGroup                bool      `json:"notifyByGroup"`
	Resolvable                   bool      `json:"resolvable"`
	NotifierIDs                  []string  `json:"notifierIDs"`
	IntervalMinutes              int64     `json:"intervalMinutes"`
	RangeMinutes                 int64     `json:"rangeMinutes"`
	Disabled                     bool      `json:"disabled"`
	DisabledUntil                time.Time `json:"disabledUntil"`
	SecondDelay                  int64     `json:"secondDelay"`
	NotifyEveryRun               bool      `json:"notifyEveryRun"`
	SkipResolved                 bool      `json:"skipResolved"`
	Tolerance                    float64   `json:"tolerance"`
	TriggerFromNRuns             int64     `json:"triggerFromNRuns"`
	TriggerAfterNPositiveResults int64     `json:"triggerAfterNPositiveResults"`
	CompareDays                  int64     `json:"compareDays"`
}

// Notifier is a destination for monitor alerts. Properties are kept as
// the client sent them (one of discord, email, slack, webhook, ...).
type Notifier struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	DisabledUntil time.Time       `json:"disabledUntil"`
	Properties    json.RawMessage `json:"properties"`
	CreatedAt     time.Time       `json:"createdAt"`
	CreatedBy     string          `json:"createdBy"`
	UpdatedAt     time.Time       `json:"updatedAt"`
}

// Dashboard is a stored dashboard document; Dashboard is the client's raw
// JSON with "uid" set.
type Dashboard struct {
	ID        string          `json:"id"`
	UID       string          `json:"uid"`
	Version   int64           `json:"version"`
	Dashboard json.RawMessage `json:"dashboard"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
	CreatedBy string          `json:"createdBy"`
	UpdatedBy string          `json:"updatedBy"`
}

// DatasetSettings are what the API says about a dataset beyond its data.
type DatasetSettings struct {
	Name               string    `json:"name"`
	Kind               string    `json:"kind"`
	Description        string    `json:"description"`
	Who                string    `json:"who"`
	Created            time.Time `json:"created"`
	UpdatedAt          time.Time `json:"updatedAt"`
	UseRetentionPeriod bool      `json:"useRetentionPeriod"`
	RetentionDays      int       `json:"retentionDays"`
	MapFields          []string  `json:"mapFields"`
}
