package core

import (
	"sync"
)

// interner gives every distinct string a query-wide integer id. Grouping
// by a dictionary-encoded column then maps each dictionary once to ids and
// groups rows by integer through a dense array: the per-row work has no
// string hashing, and the per-part work is shared by all scan workers.
type interner struct {
	mu    sync.Mutex
	ids   map[string]uint32
	strs  []string
	dicts sync.Map // *string (first dictionary entry) → *dictIDs
}

type dictIDs struct {
	once sync.Once
	ids  []uint32
}

func newInterner() *interner { return &interner{ids: make(map[string]uint32, 1024)} }

// id returns the id of s, assigning the next one when s is new.
func (in *interner) id(s string) uint32 {
	in.mu.Lock()
	id, ok := in.ids[s]
	if !ok {
		id = uint32(len(in.strs))
		in.ids[s] = id
		in.strs = append(in.strs, s)
	}
	in.mu.Unlock()
	return id
}

// dict returns the ids of a dictionary's entries, computed once per
// dictionary however many workers ask.
func (in *interner) dict(d []string) []uint32 {
	v, _ := in.dicts.LoadOrStore(&d[0], &dictIDs{})
	di := v.(*dictIDs)
	di.once.Do(func() {
		di.ids = make([]uint32, len(d))
		for i, s := range d {
			di.ids[i] = in.id(s)
		}
	})
	return di.ids
}
