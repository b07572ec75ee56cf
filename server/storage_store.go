package server

import (
	"context"
	"fmt"
	"io"

	"github.com/aplite/aplite/core/store"
)

// storeAdapter serves a *store.DB as the server's Storage.
type storeAdapter struct{ db *store.DB }

// NewStoreStorage wraps a storage engine DB (on disk or in memory) for
// Config.Storage.
func NewStoreStorage(db *store.DB) Storage { return storeAdapter{db} }

// openStorage opens the storage engine in dir: one subdirectory per
// dataset, the layout `aplite query -data` reads too.
func openStorage(dir string, opts store.Options, log io.Writer) (Storage, error) {
	if opts.Logf == nil { // recovery notices (corrupt blocks set aside, torn WAL tails) must be seen
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(log, "aplite: "+format+"\n", args...) }
	}
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

// ReadOnly reports whether the datasets are only read here (a query node
// over object storage).
func (a storeAdapter) ReadOnly() bool { return a.db.ReadOnly() }

// writable fails writes to datasets on a node that only reads them, with
// the same answer whether or not the dataset is known here.
func (s *Server) writable() error {
	if ro, ok := s.storage.(interface{ ReadOnly() bool }); ok && ro.ReadOnly() {
		return store.ErrReadOnly
	}
	return nil
}

// Refresh reloads the catalogs of a query node's datasets.
func (a storeAdapter) Refresh(ctx context.Context) error {
	if !a.db.ReadOnly() {
		return nil
	}
	return a.db.Refresh(ctx)
}
