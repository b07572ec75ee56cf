// Package db is aplite's front door: it owns the storage engine, the query
// engine over it and the catalog that joins them, on a local data
// directory, in memory, or with blocks on object storage. The server, the
// WASM build and the command line import only db (and parser for fmt;
// dep_test.go keeps it so), so the way an ingest body or a query takes is
// the same wherever it enters:
//
//	body  → Ingest, IngestStream, IngestWith (db/otlp), Decode, DecodeTabular
//	      → core/ingest, core/ingest/otlp (decode) → core/store (WAL, blocks)
//	query → Query → core (plan, run) → Output → Tabular, Legacy (core/render)
//
// db owns:
//   - opening: Open (a data directory, with blocks on object storage when
//     StoreOptions.Objects is set), OpenRemote (a query node), OpenMemory;
//   - ingest of every format through one path (build, appendRows) and the
//     one format sniff (Sniff, SniffFormat);
//   - queries and their rendering, fragments of distributed queries
//     (RunFragment), the engine's function list;
//   - datasets: Create, Delete, Names, Datasets, Info, Fields, Trim,
//     Flush, Snapshot (for a Catalog of one's own);
//   - files: a field's declared type (Retype), storage check and repair
//     (Check, Repair).
//
// Two subpackages are the front door too, apart so that a build that
// does not need them does not link their libraries: db/otlp stores OTLP
// exports (the server's; not the browser's) and db/parquetfile reads and
// writes Parquet files (the command line's and the browser's; not the
// server's).
//
// The types a caller names (Request, Output, Info, IngestOptions, the
// errors) are aliases of the engine's own (types.go), so values cross the
// door unchanged. db is pure Go and builds for GOOS=js GOARCH=wasm; object
// storage comes in through StoreOptions.Objects, an interface the core
// defines.
package db

import (
	"context"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/store"
)

// Options configure a DB: its storage and the bounds of the engine's
// caches.
type Options struct {
	Store  store.Options
	Engine core.EngineOptions
	// Isolated makes queries read only the datasets of their request's
	// catalog (core.Request.Catalog): a server hosting several
	// organizations gives each query its org's view, so a query that
	// names none finds no dataset rather than another org's.
	Isolated bool
}

// DB is a set of datasets and the engine that queries them. It is safe for
// concurrent use.
type DB struct {
	st     *store.DB
	eng    *core.Engine
	fields fieldCap
}

// Open opens (or creates) the data directory dir: one subdirectory per
// dataset. With opts.Objects set, sealed blocks go to object storage and
// dir keeps the WAL and the unflushed buffer.
func Open(dir string, opts Options) (*DB, error) {
	st, err := store.Open(dir, opts.Store)
	if err != nil {
		return nil, err
	}
	return wrap(st, opts), nil
}

// OpenRemote opens the datasets of an object store read-only, as a query
// node does: it holds no state of its own.
func OpenRemote(opts Options) (*DB, error) {
	st, err := store.OpenRemote(opts.Store)
	if err != nil {
		return nil, err
	}
	return wrap(st, opts), nil
}

// OpenMemory returns an empty database held in memory (the browser, the
// command line over files, tests).
func OpenMemory(opts Options) *DB { return wrap(store.OpenMemory(opts.Store), opts) }

func wrap(st *store.DB, opts Options) *DB {
	var cat core.Catalog = core.StoreCatalog(st)
	if opts.Isolated {
		cat = nil
	}
	return &DB{st: st, eng: core.NewEngineWith(cat, opts.Engine)}
}

// Query parses, plans and runs an APL query over the datasets. The Output
// may be shared with the result cache: do not modify it (see
// output.Output.WithMessage).
func (d *DB) Query(ctx context.Context, req *core.Request) (*output.Output, error) {
	return d.eng.Query(ctx, req)
}

// Create makes an empty dataset; an error wrapping ErrExists when the name
// is taken and one naming the rule when it is not a valid name. The
// storage's dataset it returns is for tests and benchmarks that build
// fixtures below the door; the server, the browser and the command line
// use the DB's own methods (Append, Info, Trim, Flush).
func (d *DB) Create(name string) (*store.Dataset, error) { return d.st.Create(name) }

// Dataset returns the storage's dataset, for tests and benchmarks (see
// Create); an error wrapping ErrNotFound when there is none of that name.
func (d *DB) Dataset(name string) (*store.Dataset, error) { return d.st.Get(name) }

// Delete removes a dataset and its data.
func (d *DB) Delete(name string) error {
	defer d.fields.forget(name)
	return d.st.Delete(name)
}

// Names lists every dataset's name, sorted.
func (d *DB) Names() []string {
	sets := d.st.List()
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.Name()
	}
	return names
}

// Datasets describes every dataset (size, fields, time range, damage),
// sorted by name.
func (d *DB) Datasets() []store.Info {
	sets := d.st.List()
	out := make([]store.Info, len(sets))
	for i, s := range sets {
		out[i] = s.Info()
	}
	return out
}

// ReadOnly reports whether the datasets are only read here (a query node).
func (d *DB) ReadOnly() bool { return d.st.ReadOnly() }

// WriteFence is nil while this node may write to the bucket: a writer
// whose lease another node took over gets ErrLeaseLost
// (core/store/OBJECTS.md, "The writer lease").
func (d *DB) WriteFence() error { return d.st.WriteFence() }

// Refresh reloads a query node's catalogs from object storage; it does
// nothing where the datasets are written here.
func (d *DB) Refresh(ctx context.Context) error {
	if !d.st.ReadOnly() {
		return nil
	}
	return d.st.Refresh(ctx)
}

// Close flushes buffered events and releases the storage.
func (d *DB) Close() error { return d.st.Close() }
