package exec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aplite/aplite/vector"
)

// A group's string key is its own copy: overwriting the bytes the input
// column pointed into leaves the keys as they were, long keys included,
// and the empty string stays a group distinct from null.
func TestGroupKeysOutliveInput(t *testing.T) {
	buf := []byte(strings.Repeat("x", keyChunk))
	c := vector.New(vector.String, 4)
	short, long := string(buf[:12]), string(buf[:keyChunk/2])
	c.AppendStr(short)
	c.AppendStr(long)
	c.AppendStr("")
	c.AppendNull()
	g := newGroupTable([]vector.Type{vector.String})
	out := make([]uint32, c.Len)
	g.assign([]*vector.Vector{c}, nil, c.Len, out)
	if g.N != 4 {
		t.Fatalf("%d groups of 4 distinct keys", g.N)
	}
	for i := range buf {
		buf[i] = 'y'
	}
	keys := g.keys[0]
	if keys.Str(0) != strings.Repeat("x", 12) || keys.Str(1) != strings.Repeat("x", keyChunk/2) || keys.Str(2) != "" || !keys.IsNull(3) {
		t.Fatalf("keys changed with their input: %.20q %.20q %q null=%v", keys.Str(0), keys.Str(1), keys.Str(2), keys.IsNull(3))
	}
}

// Distinct string keys share chunks: a summarize by a high-cardinality
// string makes a few allocations per thousand groups, not one per group.
func TestGroupKeysShareChunks(t *testing.T) {
	const n = 4000
	c := vector.New(vector.String, n)
	for i := range n {
		c.AppendStr(fmt.Sprintf("/api/v1/users/%08d/orders", i))
	}
	out := make([]uint32, n)
	allocs := testing.AllocsPerRun(5, func() {
		g := newGroupTable([]vector.Type{vector.String})
		g.assign([]*vector.Vector{c}, nil, n, out)
	})
	// The map and the key vector grow by doubling (about 2 x 12 times);
	// one allocation per key would be 4000 more.
	if allocs > n/20 {
		t.Errorf("%v allocations to group %d distinct keys", allocs, n)
	}
}
