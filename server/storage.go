package server

import (
	"github.com/aplite/aplite/core/store"
)

// Storage is what the server needs from the storage engine. *store.DB
// provides it through storeAdapter; tests and benchmarks may pass their
// own (Config.Storage).
type Storage interface {
	// Create makes an empty dataset; an error wrapping store.ErrExists
	// when the name is taken.
	Create(name string) (Dataset, error)
	// Get returns a dataset; an error wrapping store.ErrNotFound when absent.
	Get(name string) (Dataset, error)
	// Names lists every dataset, sorted.
	Names() []string
	// Delete removes a dataset and its data.
	Delete(name string) error
	// Close flushes buffered rows and releases the storage.
	Close() error
}

// Dataset is one dataset of a Storage.
type Dataset interface {
	// Append stores rows durably before returning.
	Append(r *store.Rows) (store.AppendResult, error)
	// Snapshot returns the parts a query scans.
	Snapshot() *store.Snapshot
	// Trim queues the deletion of events with _time before the given ns.
	Trim(before int64) (bool, error)
	// Info summarises the dataset.
	Info() store.Info
}

// catalog lets the query engine read a whole Storage (benchmarks); the
// server gives each query its org's view instead (storage_org.go).
type catalog struct{ st Storage }

// Snapshot implements core.Catalog.
func (c catalog) Snapshot(name string) (*store.Snapshot, error) {
	d, err := c.st.Get(name)
	if err != nil {
		return nil, err
	}
	return d.Snapshot(), nil
}

// Names implements core.Catalog.
func (c catalog) Names() []string { return c.st.Names() }
