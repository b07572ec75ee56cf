package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/store"
)

// Info describes the dataset name; an error wrapping ErrNotFound when
// there is none of that name.
func (d *DB) Info(name string) (Info, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return Info{}, err
	}
	return ds.Info(), nil
}

// Snapshot returns the parts of the dataset name a query reads now, for a
// Catalog that shows datasets under names of its own (a server's orgs).
func (d *DB) Snapshot(name string) (*Snapshot, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return nil, err
	}
	return ds.Snapshot(), nil
}

// Trim drops the events of the dataset name older than before (ns since
// the epoch); it reports whether any were dropped.
func (d *DB) Trim(name string, before int64) (bool, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return false, err
	}
	defer d.fields.forget(name) // its oldest fields may have gone
	return ds.Trim(before)
}

// Flush seals the buffered events of the dataset name into compressed
// blocks (the end of a streamed load).
func (d *DB) Flush(name string) error {
	ds, err := d.st.Get(name)
	if err != nil {
		return err
	}
	return ds.Flush()
}

// RunStreamFragment runs the fragment of a query over a file read in
// place that another engine cut into pieces (SplitStream): open returns
// the stream of the piece the fragment names. It answers as RunFragment.
func (d *DB) RunStreamFragment(ctx context.Context, f *Fragment, open func(dataset, piece string) (TableStream, error)) ([]byte, error) {
	return d.eng.RunStreamFragment(ctx, f, open)
}

// RunFragment runs the fragment of a distributed query another node sent,
// over the datasets of cat (nil: all of them), and returns its encoded
// partial result. An error wrapping ErrFragmentParts means the fragment
// names blocks this node does not know yet.
func (d *DB) RunFragment(ctx context.Context, cat Catalog, f *Fragment) ([]byte, error) {
	out, err := d.eng.RunFragmentIn(ctx, cat, f)
	if errors.Is(err, ErrFragmentParts) && d.st.FollowsOthers() {
		// An ingest node among many may not have read the other ingest
		// nodes' newest blocks yet, which the query node names: read
		// them now rather than answer without them.
		if rerr := d.st.RefreshOthers(ctx); rerr != nil {
			return nil, fmt.Errorf("%w (reading the other ingest nodes' blocks: %v)", err, rerr)
		}
		out, err = d.eng.RunFragmentIn(ctx, cat, f)
	}
	return out, err
}

// ValidateName reports why name cannot be a dataset's name, or nil.
func ValidateName(name string) error { return store.ValidateName(name) }
