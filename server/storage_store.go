package server

import (
	"github.com/aplite/aplite/core/store"
)

// storeAdapter serves a *store.DB as the server's Storage.
type storeAdapter struct{ db *store.DB }

// NewStoreStorage wraps a storage engine DB (on disk or in memory) for
// Config.Storage.
func NewStoreStorage(db *store.DB) Storage { return storeAdapter{db} }

// openStorage opens the storage engine in dir: one subdirectory per
// dataset, the layout `aplite query -data` reads too.
func openStorage(dir string, opts store.Options) (Storage, error) {
	db, err := store.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	return storeAdapter{db}, nil
}

func (a storeAdapter) Create(name string) (Dataset, error) {
	d, err := a.db.Create(name)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (a storeAdapter) Get(name string) (Dataset, error) {
	d, err := a.db.Get(name)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (a storeAdapter) Names() []string {
	sets := a.db.List()
	names := make([]string, len(sets))
	for i, d := range sets {
		names[i] = d.Name()
	}
	return names
}

func (a storeAdapter) Delete(name string) error { return a.db.Delete(name) }
func (a storeAdapter) Close() error             { return a.db.Close() }
