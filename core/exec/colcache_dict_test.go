package exec

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/aplite/aplite/vector"
)

func strColumn(n int, value func(i int) string) *vector.Vector {
	v := &vector.Vector{Type: vector.String, Len: n, Strs: make([]string, n)}
	for i := range v.Strs {
		v.Strs[i] = value(i)
	}
	return v
}

// TestDictEncodeGivesUpOnFreeText: a column of distinct messages enters
// the cache as it is, after a look at its first values, not after
// hashing half of them (a third of a full-text search's decode at ten
// million events); a column of repeated values is still coded.
func TestDictEncodeGivesUpOnFreeText(t *testing.T) {
	const n = 1 << 17
	text := strColumn(n, func(i int) string { return fmt.Sprintf("served GET /items/%d in %d ms", i, i%977) })
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := dictEncode(text)
	runtime.ReadMemStats(&after)
	if got != text {
		t.Fatalf("free text was dictionary coded")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 512<<10 {
		t.Errorf("giving up on %d distinct values allocated %d bytes, want at most %d", n, alloc, 512<<10)
	}
	rep := strColumn(n, func(i int) string { return []string{"GET", "POST", "PUT"}[i%3] })
	coded := dictEncode(rep)
	if coded.Codes == nil || len(coded.Dict) != 3 {
		t.Fatalf("repeated values: dict %v, codes set %v", coded.Dict, coded.Codes != nil)
	}
	for i := range n {
		if coded.Str(i) != rep.Strs[i] {
			t.Fatalf("row %d: %q, want %q", i, coded.Str(i), rep.Strs[i])
		}
	}
}
