package meta

import (
	"errors"
	"time"
)

// Owner is the user created on first start, who owns the default org.
var ownerKey = "owner"

// Bootstrap makes sure the org orgID and its owner user exist, the owner
// being a member of it, and returns the owner. It is idempotent: later starts find and return the same owner.
func (s *Store) Bootstrap(orgID string, now time.Time) (*User, error) {
	now = now.UTC()
	var owner User
	// Every start after the first finds everything in place: a read
	// says so without a write transaction (and, on a cluster's ingest
	// node, without republishing the metadata).
	var settled bool
	err := s.View(func(tx *Tx) error {
		var err error
		settled, err = tx.bootstrapped(orgID, &owner)
		return err
	})
	if err != nil || settled {
		return &owner, err
	}
	err = s.Update(func(tx *Tx) error {
		if !tx.Has(KindOrg, "", orgID) {
			if err := tx.Put(KindOrg, "", orgID, DefaultOrg(orgID, now)); err != nil {
				return err
			}
		}
		if err := tx.ensureOwner(&owner); err != nil {
			return err
		}
		if _, ok := tx.Member(orgID, owner.ID); !ok {
			if err := tx.PutMember(orgID, owner.ID, "owner", now); err != nil {
				return err
			}
		}
		return tx.adoptUsers(orgID, now)
	})
	if err != nil {
		return nil, err
	}
	return &owner, nil
}

// bootstrapped reports whether Bootstrap has nothing to write: the org,
// its owner (read into owner) and the owner's membership exist, and no
// user is left without an org.
func (t *Tx) bootstrapped(orgID string, owner *User) (bool, error) {
	var ownerID string
	if !t.Has(KindOrg, "", orgID) || t.Get(KindSettings, "", ownerKey, &ownerID) != nil ||
		t.Get(KindUser, "", ownerID, owner) != nil {
		return false, nil
	}
	if _, ok := t.Member(orgID, ownerID); !ok {
		return false, nil
	}
	orphans, err := t.orphanUsers()
	return len(orphans) == 0, err
}

// ensureOwner reads the owner user, creating it on the first start.
func (t *Tx) ensureOwner(owner *User) error {
	var ownerID string
	if err := t.Get(KindSettings, "", ownerKey, &ownerID); err == nil {
		if err := t.Get(KindUser, "", ownerID, owner); err == nil {
			return nil
		}
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	*owner = User{ID: NewID(), Name: "aplite admin", Email: "admin@localhost",
		Role: Role{ID: "owner", Name: "owner"}}
	if err := t.Put(KindUser, "", owner.ID, *owner); err != nil {
		return err
	}
	return t.Put(KindSettings, "", ownerKey, owner.ID)
}

// OwnerID returns the id of the user created on the first start.
func (s *Store) OwnerID() string {
	var id string
	s.Get(KindSettings, "", ownerKey, &id)
	return id
}

// EnsurePAT makes secret a personal access token of user in org. A secret
// that is already known is left as it is, so restarting with the same
// -token is harmless.
func (s *Store) EnsurePAT(secret, userID, orgID string, now time.Time) error {
	return s.Update(func(tx *Tx) error {
		if tx.bucket(KindTokenHash).Get(key("", HashSecret(secret))) != nil {
			return nil
		}
		rec := &TokenRecord{
			APIToken: APIToken{ID: NewID(), Name: "personal access token",
				DatasetCapabilities: map[string]DatasetCaps{}},
			Kind: TokenPersonal, UserID: userID, OrgID: orgID, Issued: now.UTC(),
		}
		return tx.PutToken(rec, secret)
	})
}

// DefaultOrg is the record of a fresh org: a comped plan whose license is
// generous enough that its limits never disturb a benchmark.
func DefaultOrg(id string, now time.Time) Org {
	now = now.UTC().Truncate(time.Second)
	far := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	return Org{
		ID: id, Name: id, Slug: id, Plan: "comped", PlanCreated: now,
		LastUsageSync: now, Role: "owner", PrimaryEmail: "admin@localhost",
		PaymentStatus: "na", MetaCreated: now, MetaModified: now, MetaVersion: "1",
		ExternalPlan: ExtPlan{State: "active", StartingOn: now, EndingBefore: far,
			NextBillingDate: far, TrialEndingBefore: now},
		License: License{
			ID: NewID(), Issuer: "aplite", IssuedTo: id, IssuedAt: now, ValidFrom: now,
			ExpiresAt: far, Tier: "comped",
			APIRateLimitPerSecond: 100000, IngestLimitPerSecond: 100000, QueryLimitPerSecond: 100000,
			MonthlyIngestGB: 1 << 20, MonthlyQueryGBHours: 1 << 20, StorageAllowanceGB: 1 << 20,
			MaxUsers: 1000, MaxFields: 100000, MaxDatasets: 10000, MaxMonitors: 10000,
			MaxEndpoints: 10000, MaxQueryWindowSeconds: 0, MaxAuditWindowSeconds: 0,
			WithRBAC: true, WithAuths: []string{"token"}, Features: map[string]any{},
		},
	}
}
