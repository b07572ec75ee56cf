package exec

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/vector"
)

// Grouping a plain string column through the interner groups by content,
// whatever the strings' addresses: a prefix sharing its bytes' address
// with a longer string is a group of its own, equal strings at different
// addresses are one group, and the empty string and null are groups too.
func TestInternedGroupsByContentNotAddress(t *testing.T) {
	base := "/api/v1/users"
	vals := []string{
		base, base[:4], base[:7], strings.Clone(base), base, "",
		strings.Clone(base[:4]), base[:4], "/", base[:1], "",
	}
	c := vector.New(vector.String, len(vals)+1)
	for _, v := range vals {
		c.AppendStr(v)
	}
	c.AppendNull()
	for _, sel := range [][]int32{nil, {10, 1, 9, 0, 11, 6}} {
		g := newGroupTable([]vector.Type{vector.String})
		g.intern = NewInterner()
		m := c.Len
		if sel != nil {
			m = len(sel)
		}
		out := make([]uint32, m)
		g.assign([]*vector.Vector{c}, sel, c.Len, out)
		byKey := map[string]uint32{}
		for k, id := range out {
			i := k
			if sel != nil {
				i = int(sel[k])
			}
			key := "null"
			if !c.IsNull(i) {
				key = "=" + c.Str(i)
			}
			if prev, ok := byKey[key]; ok && prev != id {
				t.Fatalf("sel %v: %q is in groups %d and %d", sel, key, prev, id)
			}
			byKey[key] = id
		}
		seen := map[uint32]string{}
		for key, id := range byKey {
			if other, ok := seen[id]; ok {
				t.Fatalf("sel %v: %q and %q share group %d", sel, key, other, id)
			}
			seen[id] = key
		}
		if g.N != len(byKey) {
			t.Fatalf("sel %v: %d groups, want %d", sel, g.N, len(byKey))
		}
	}
}
