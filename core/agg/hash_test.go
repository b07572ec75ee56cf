package agg

import "testing"

// TestHashesAreTheSameEverywhere pins the hashes dcount states carry: a
// distributed query merges states other processes built (query nodes, the
// console's helper engines), so a hash may not depend on a per-process
// seed. With maphash's random seed, every engine that saw a value counted
// it once more.
func TestHashesAreTheSameEverywhere(t *testing.T) {
	if got := hashString("GET"); got != 0x2b88ed1df1352c47 {
		t.Errorf(`hashString("GET") = %#x, want 0x2b88ed1df1352c47`, got)
	}
	if got := hashDyn(map[string]any{"a": []any{int64(1), "x"}}); got != 0xfa1b61da49692c0e {
		t.Errorf("hashDyn = %#x, want 0xfa1b61da49692c0e", got)
	}
}
