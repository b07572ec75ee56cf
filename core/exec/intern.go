package exec

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Interner gives every distinct string a query-wide integer id. Grouping
// by a dictionary-encoded column then maps each dictionary once to ids and
// groups rows by integer through a dense array: the per-row work has no
// string hashing, and the per-part work is shared by all scan workers.
//
// The interner is shared by the queries of an engine, so the ids of a
// cached column's dictionary are computed once, not once per query; it is
// replaced by a fresh one when it grows past its bounds (queries already
// running keep the one they started with).
type Interner struct {
	mu  sync.Mutex
	Ids map[string]uint32
	// strs holds the interned copies by id in chunks that never move, so
	// Str reads them without the lock (see Str).
	strs   [maxInternChunks]*[internChunk]string
	n      int      // strings interned
	dicts  sync.Map // *string (first dictionary entry) → *dictIDs
	Ndicts atomic.Int64
	// Transient marks the interner of a query over streams: their
	// dictionaries live for one chunk, and remembering them by address
	// kept every chunk's dictionary alive until the query ended (153 row
	// groups of 12K URIs each tripled a Parquet query's memory).
	Transient bool
}

// Bounds past which an engine starts a fresh interner.
const (
	maxInternedStrings = 1 << 20
	maxInternedDicts   = 1 << 14
)

// The interned copies are kept in chunks of internChunk; ids past
// maxInternChunks chunks (4× the bound at which an engine replaces its
// interner, reached only within one query) have none, and Str says so.
const (
	internChunk     = 1 << 12
	maxInternChunks = 4 * maxInternedStrings / internChunk
)

// Full reports whether the interner should be replaced.
func (in *Interner) Full() bool {
	in.mu.Lock()
	n := in.n
	in.mu.Unlock()
	return n > maxInternedStrings || in.Ndicts.Load() > maxInternedDicts
}

type dictIDs struct {
	once sync.Once
	ids  []uint32
}

// NewInterner returns an empty interner; an engine starts a fresh one
// when the current one is full.
func NewInterner() *Interner { return &Interner{Ids: make(map[string]uint32, 1024)} }

// id returns the id of s, assigning the next one when s is new.
func (in *Interner) id(s string) uint32 {
	in.mu.Lock()
	id := in.idLocked(s)
	in.mu.Unlock()
	return id
}

// idLocked is id with in.mu held.
func (in *Interner) idLocked(s string) uint32 {
	id, ok := in.Ids[s]
	if !ok {
		// A copy: the interner outlives the query, and s may point into a
		// buffer shared by a whole decoded chunk (newGroup says more).
		s = strings.Clone(s)
		id = uint32(in.n)
		in.Ids[s] = id
		if c := in.n / internChunk; c < maxInternChunks {
			if in.strs[c] == nil {
				in.strs[c] = new([internChunk]string)
			}
			in.strs[c][in.n%internChunk] = s
		}
		in.n++
	}
	return id
}

// Str returns the interner's own copy of the string of id, and false
// when it keeps none (ids past maxInternChunks chunks). It takes no lock:
// a caller holds id only from id, internAll or Dict, which wrote the
// string before handing the id out under the lock (or Dict's once), and
// a chunk, once placed, is never moved or written again at that index.
func (in *Interner) Str(id uint32) (string, bool) {
	c := int(id) / internChunk
	if c >= maxInternChunks {
		return "", false
	}
	return in.strs[c][int(id)%internChunk], true
}

// internAll interns every string of d under one lock: a row group's dictionary
// of thousands of URIs took and released the lock per entry, with the
// other scan worker contending for it.
func (in *Interner) internAll(d []string) []uint32 {
	out := make([]uint32, len(d))
	in.mu.Lock()
	for i, s := range d {
		out[i] = in.idLocked(s)
	}
	in.mu.Unlock()
	return out
}

// Dict returns the ids of a dictionary's entries, computed once per
// dictionary however many workers ask.
func (in *Interner) Dict(d []string) []uint32 {
	if in.Transient {
		return in.internAll(d)
	}
	v, loaded := in.dicts.LoadOrStore(&d[0], &dictIDs{})
	if !loaded {
		in.Ndicts.Add(1)
	}
	di := v.(*dictIDs)
	di.once.Do(func() { di.ids = in.internAll(d) })
	return di.ids
}
