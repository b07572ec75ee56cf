package server

import (
	"context"
	"fmt"
	"io"

	"github.com/aplite/aplite/db"
)

// openDB opens the database in dir: one subdirectory per dataset, the
// layout `aplite query -data` reads too. Queries are isolated: each reads
// its org's view (storage_org.go).
func openDB(dir string, cfg *Config) (*db.DB, error) {
	opts := cfg.StoreOptions
	if opts.Logf == nil { // recovery notices (corrupt blocks set aside, torn WAL tails) must be seen
		log := cfg.Log
		opts.Logf = func(format string, args ...any) { logf(log, format, args...) }
	}
	return db.Open(dir, db.Options{Store: opts, Engine: cfg.Engine, Isolated: true})
}

func logf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, "aplite: "+format+"\n", args...) }

// writable fails writes to datasets on a node that only reads them, with
// the same answer whether or not the dataset is known here.
func (s *Server) writable() error {
	if s.db.ReadOnly() {
		return db.ErrReadOnly
	}
	return nil
}

// refresh reloads a query node's catalogs from the bucket.
func (s *Server) refresh(ctx context.Context) error { return s.db.Refresh(ctx) }
