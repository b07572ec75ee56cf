package core

import (
	"strings"
	"sync"
	"sync/atomic"
)

// interner gives every distinct string a query-wide integer id. Grouping
// by a dictionary-encoded column then maps each dictionary once to ids and
// groups rows by integer through a dense array: the per-row work has no
// string hashing, and the per-part work is shared by all scan workers.
//
// The interner is shared by the queries of an engine, so the ids of a
// cached column's dictionary are computed once, not once per query; it is
// replaced by a fresh one when it grows past its bounds (queries already
// running keep the one they started with).
type interner struct {
	mu     sync.Mutex
	ids    map[string]uint32
	strs   []string
	dicts  sync.Map // *string (first dictionary entry) → *dictIDs
	ndicts atomic.Int64
	// transient marks the interner of a query over streams: their
	// dictionaries live for one chunk, and remembering them by address
	// kept every chunk's dictionary alive until the query ended (153 row
	// groups of 12K URIs each tripled a Parquet query's memory).
	transient bool
}

// Bounds past which an engine starts a fresh interner.
const (
	maxInternedStrings = 1 << 20
	maxInternedDicts   = 1 << 14
)

// full reports whether the interner should be replaced.
func (in *interner) full() bool {
	in.mu.Lock()
	n := len(in.strs)
	in.mu.Unlock()
	return n > maxInternedStrings || in.ndicts.Load() > maxInternedDicts
}

type dictIDs struct {
	once sync.Once
	ids  []uint32
}

func newInterner() *interner { return &interner{ids: make(map[string]uint32, 1024)} }

// id returns the id of s, assigning the next one when s is new.
func (in *interner) id(s string) uint32 {
	in.mu.Lock()
	id := in.idLocked(s)
	in.mu.Unlock()
	return id
}

// idLocked is id with in.mu held.
func (in *interner) idLocked(s string) uint32 {
	id, ok := in.ids[s]
	if !ok {
		// A copy: the interner outlives the query, and s may point into a
		// buffer shared by a whole decoded chunk (newGroup says more).
		s = strings.Clone(s)
		id = uint32(len(in.strs))
		in.ids[s] = id
		in.strs = append(in.strs, s)
	}
	return id
}

// internAll interns every string of d under one lock: a row group's dictionary
// of thousands of URIs took and released the lock per entry, with the
// other scan worker contending for it.
func (in *interner) internAll(d []string) []uint32 {
	out := make([]uint32, len(d))
	in.mu.Lock()
	for i, s := range d {
		out[i] = in.idLocked(s)
	}
	in.mu.Unlock()
	return out
}

// dict returns the ids of a dictionary's entries, computed once per
// dictionary however many workers ask.
func (in *interner) dict(d []string) []uint32 {
	if in.transient {
		return in.internAll(d)
	}
	v, loaded := in.dicts.LoadOrStore(&d[0], &dictIDs{})
	if !loaded {
		in.ndicts.Add(1)
	}
	di := v.(*dictIDs)
	di.once.Do(func() { di.ids = in.internAll(d) })
	return di.ids
}
