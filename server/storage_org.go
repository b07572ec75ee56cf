package server

import (
	"fmt"
	"strings"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/otlp"
	"github.com/aplite/aplite/server/meta"
)

// The datasets of every org share one storage. The org that owned the
// data directory before there were several (the "storage org", kept in
// the metadata on first start) keeps plain dataset names, so existing
// directories work unchanged and restarting with another -org never
// hands them to another org. Any other org's dataset NAME is stored as
// "axiom-org.ORG.NAME": the API refuses dataset names that start with
// "axiom-" (validDatasetName) and org ids hold no '.', so no name a user
// chooses, in any org, can collide with it. Only this file knows the
// scheme; handlers, queries and the metadata keys of dataset settings all
// go through an orgDatasets view.

// orgStoragePrefix starts the stored name of other orgs' datasets.
const orgStoragePrefix = "axiom-org."

// storageOrgKey is the settings record naming the storage org.
const storageOrgKey = "storageOrg"

// orgDatasets is one org's view of the storage: the Storage methods over
// the org's own names, and the db.Catalog its queries read.
type orgDatasets struct {
	db     *db.DB
	prefix string // "" for the storage org
}

// datasets returns org's view of the storage.
func (s *Server) datasets(org string) orgDatasets {
	if org == s.storageOrg {
		return orgDatasets{db: s.db}
	}
	return orgDatasets{db: s.db, prefix: orgStoragePrefix + org + "."}
}

// datasets returns the caller's org's view of the storage.
func (c *call) datasets() orgDatasets { return c.s.datasets(c.p.org) }

// key returns the stored name of dataset name, false for a name the org
// cannot have (another org's stored name seen from the storage org).
func (v orgDatasets) key(name string) (string, bool) {
	if v.prefix == "" {
		return name, !strings.HasPrefix(name, orgStoragePrefix)
	}
	return v.prefix + name, true
}

func errNoDataset(name string) error { return fmt.Errorf("%w: %s", db.ErrNotFound, name) }

// Create makes an empty dataset in the org.
func (v orgDatasets) Create(name string) error {
	k, ok := v.key(name)
	if !ok {
		return fmt.Errorf("invalid dataset name %q: the prefix %q is reserved", name, orgStoragePrefix)
	}
	_, err := v.db.Create(k)
	return err
}

// Info describes one of the org's datasets.
func (v orgDatasets) Info(name string) (db.Info, error) {
	k, ok := v.key(name)
	if !ok {
		return db.Info{}, errNoDataset(name)
	}
	return v.db.Info(k)
}

// Has reports whether the org has a dataset called name.
func (v orgDatasets) Has(name string) bool {
	_, err := v.Info(name)
	return err == nil
}

// Trim drops the events of one of the org's datasets older than before.
func (v orgDatasets) Trim(name string, before int64) error {
	k, ok := v.key(name)
	if !ok {
		return errNoDataset(name)
	}
	_, err := v.db.Trim(k, before)
	return err
}

// Delete removes one of the org's datasets.
func (v orgDatasets) Delete(name string) error {
	k, ok := v.key(name)
	if !ok {
		return errNoDataset(name)
	}
	return v.db.Delete(k)
}

// Ingest decodes body into one of the org's datasets and stores its
// events (db.DB.Ingest).
func (v orgDatasets) Ingest(name string, body []byte, opts db.IngestOptions) (db.IngestResult, error) {
	k, ok := v.key(name)
	if !ok {
		return db.IngestResult{}, errNoDataset(name)
	}
	return v.db.Ingest(k, body, opts)
}

// IngestOTLP stores an OTLP export body in one of the org's datasets
// (otlp.Ingest).
func (v orgDatasets) IngestOTLP(name string, body []byte, sig otlp.Signal, isJSON bool) (db.IngestResult, error) {
	k, ok := v.key(name)
	if !ok {
		return db.IngestResult{}, errNoDataset(name)
	}
	return otlp.Ingest(v.db, k, body, sig, isJSON)
}

// Names lists the org's datasets, sorted, by the names the org uses.
func (v orgDatasets) Names() []string {
	var out []string
	for _, n := range v.db.Names() {
		switch {
		case v.prefix == "" && !strings.HasPrefix(n, orgStoragePrefix):
			out = append(out, n)
		case v.prefix != "" && strings.HasPrefix(n, v.prefix):
			out = append(out, n[len(v.prefix):])
		}
	}
	return out
}

// Snapshot implements db.Catalog. The snapshot carries the name the
// org uses, which is what union's withsource column and damage messages
// show.
func (v orgDatasets) Snapshot(name string) (*db.Snapshot, error) {
	k, ok := v.key(name)
	if !ok {
		return nil, errNoDataset(name)
	}
	snap, err := v.db.Snapshot(k)
	if err != nil {
		return nil, err
	}
	snap.Dataset = name
	return snap, nil
}

// loadStorageOrg reads the storage org, recording org as that one on the
// first start (and the first start after upgrading to several orgs,
// whose data all belonged to the one org there was).
func loadStorageOrg(ms *meta.Store, org string) (string, error) {
	var got string
	// A read first: only the first start writes (a write on every start
	// would also republish the metadata of a cluster's ingest node).
	if ms.Get(meta.KindSettings, "", storageOrgKey, &got) == nil {
		return got, nil
	}
	err := ms.Update(func(tx *meta.Tx) error {
		if err := tx.Get(meta.KindSettings, "", storageOrgKey, &got); err == nil {
			return nil
		}
		got = org
		return tx.Put(meta.KindSettings, "", storageOrgKey, org)
	})
	return got, err
}
