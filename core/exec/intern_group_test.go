package exec

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/aplite/aplite/vector"
)

// Str returns the interner's own copy for every id, across chunk
// boundaries and while other goroutines intern (run with -race), and
// says when an id has none.
func TestInternerStr(t *testing.T) {
	in := NewInterner()
	const n = 3*internChunk + 5
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range n {
				s := fmt.Sprintf("/api/%d", i)
				id := in.id(s)
				got, ok := in.Str(id)
				if !ok || got != s {
					t.Errorf("worker %d: Str(id(%q)) = %q, %v", w, s, got, ok)
					return
				}
			}
		})
	}
	wg.Wait()
	if _, ok := in.Str(maxInternChunks * internChunk); ok {
		t.Error("an id past the chunks has a string")
	}
}

// A summarize by one string key through the interner: groups keep the
// interner's copy (no bytes of their own, nothing pointing into the
// input), from a dictionary column and a plain one, and merging two
// workers' tables keeps one group per key.
func TestInternedGroupKeys(t *testing.T) {
	in := NewInterner()
	buf := []byte("/a/b/c/d")
	dict := vector.New(vector.String, 0)
	dict.Dict = []string{string(buf[:2]), string(buf[:4]), string(buf[:6])}
	dict.Codes = []uint32{0, 1, 2, 1, 0}
	dict.Len = 5
	plain := vector.New(vector.String, 3)
	for _, s := range []string{"/a/b/c/d", "/a", "/x"} {
		plain.AppendStr(s)
	}
	tables := make([]*groupTable, 2)
	for i, c := range []*vector.Vector{dict, plain} {
		g := newGroupTable([]vector.Type{vector.String})
		g.intern = in
		out := make([]uint32, c.Len)
		g.assign([]*vector.Vector{c}, nil, c.Len, out)
		tables[i] = g
	}
	for i := range buf {
		buf[i] = 'z'
	}
	if g := tables[0]; g.N != 3 || g.keys[0].Str(0) != "/a" || g.keys[0].Str(2) != "/a/b/c" {
		t.Fatalf("dictionary column: %d groups, keys %q %q", g.N, g.keys[0].Str(0), g.keys[0].Str(2))
	}
	for _, g := range tables {
		for k := range g.N {
			s := g.keys[0].Str(k)
			own, _ := in.Str(in.id(s))
			if unsafe.StringData(s) != unsafe.StringData(own) {
				t.Errorf("key %q is not the interner's copy", s)
			}
		}
	}
	into := tables[0].mergeInto(tables[1])
	var keys []string
	for k := range tables[0].N {
		keys = append(keys, tables[0].keys[0].Str(k))
	}
	if got := strings.Join(keys, " "); got != "/a /a/b /a/b/c /a/b/c/d /x" || into[1] != 0 {
		t.Fatalf("merged keys %q, /a mapped to %d", got, into[1])
	}
}
