package db

import (
	"testing"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// A field that arrived as 200 and as "200" (two stored columns) becomes
// one column of the declared type, in the place of the first.
func TestRetypeMergesColumns(t *testing.T) {
	b := store.NewRowsBuilder()
	for _, v := range []any{int64(200), "404", nil, "x"} {
		b.Begin()
		b.SetString("a", "k")
		switch x := v.(type) {
		case int64:
			b.SetInt("status", x)
		case string:
			b.SetString("status", x)
		}
		b.End(0)
	}
	r := b.Finish(0)
	if lost := Retype(r, "status", vector.Int); lost != 1 {
		t.Errorf("lost %d values, want 1 (the x)", lost)
	}
	if len(r.Keys) != 2 || r.Keys[1] != (store.ColKey{Name: "status", Type: vector.Int}) {
		t.Fatalf("keys %v", r.Keys)
	}
	c := r.Cols[1]
	if c.Len != 4 || c.Int(0) != 200 || c.Int(1) != 404 || !c.IsNull(2) || !c.IsNull(3) {
		t.Errorf("column %+v", c)
	}
	if lost := Retype(r, "status", vector.Int); lost != 0 || len(r.Keys) != 2 { // already typed: nothing to do
		t.Errorf("second retype changed the keys: %v", r.Keys)
	}
}
