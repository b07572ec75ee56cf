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
	if g, keys := tables[0], tables[0].keyCols()[0]; g.N != 3 || keys.Str(0) != "/a" || keys.Str(2) != "/a/b/c" {
		t.Fatalf("dictionary column: %d groups, keys %q %q", g.N, keys.Str(0), keys.Str(2))
	}
	for _, g := range tables {
		for k := range g.N {
			s := g.keyCols()[0].Str(k)
			own, _ := in.Str(in.id(s))
			if unsafe.StringData(s) != unsafe.StringData(own) {
				t.Errorf("key %q is not the interner's copy", s)
			}
		}
	}
	into := tables[0].mergeInto(tables[1])
	var keys []string
	for k := range tables[0].N {
		keys = append(keys, tables[0].keyCols()[0].Str(k))
	}
	if got := strings.Join(keys, " "); got != "/a /a/b /a/b/c /a/b/c/d /x" || into[1] != 0 {
		t.Fatalf("merged keys %q, /a mapped to %d", got, into[1])
	}
}

// Interned groups record only their id until the keys are read; a null
// group made in between (which appends its key at once) and a second
// read still give every group its own key, in group order.
func TestInternedKeysInGroupOrder(t *testing.T) {
	in := NewInterner()
	g := newGroupTable([]vector.Type{vector.String})
	g.intern = in
	batch := func(vals ...any) {
		c := vector.New(vector.String, len(vals))
		for _, v := range vals {
			if v == nil {
				c.AppendNull()
				continue
			}
			c.AppendStr(v.(string))
		}
		out := make([]uint32, c.Len)
		g.assign([]*vector.Vector{c}, nil, c.Len, out)
	}
	batch("a", "b")
	batch(nil, "c", "a")
	if got := g.keyCols()[0]; got.Len != 4 || got.Str(0) != "a" || got.Str(1) != "b" || !got.IsNull(2) || got.Str(3) != "c" {
		t.Fatalf("keys after a null group: %d rows", got.Len)
	}
	batch("d", nil, "b")
	keys := g.keyCols()[0]
	var seen []string
	for k := range g.N {
		if keys.IsNull(k) {
			seen = append(seen, "null")
			continue
		}
		seen = append(seen, keys.Str(k))
	}
	if got := strings.Join(seen, " "); got != "a b null c d" {
		t.Fatalf("keys %q, want a b null c d", got)
	}
}
