package exec

import (
	"runtime"
	"testing"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// statusColumn is n rows of a few HTTP statuses, every seventh null, with
// its byte side, as readPartColumn hands it to the cache.
func statusColumn(n int) *vector.Vector {
	v := vector.New(vector.Int, n)
	for i := range n {
		if i%7 == 3 {
			v.AppendNull()
		} else {
			v.AppendInt([]int64{200, 404, 500, 301}[i%4])
		}
	}
	return v.WithSmall()
}

// methodColumn is n rows of a few methods, dictionary coded, with every
// fifth null and the byte side.
func methodColumn(n int) *vector.Vector {
	v := vector.New(vector.String, n)
	for i := range n {
		if i%5 == 1 {
			v.AppendNull()
		} else {
			v.AppendStr([]string{"GET", "POST", "PUT"}[i%3])
		}
	}
	return dictEncode(v).WithSmall()
}

func sameRows(t *testing.T, what string, got, want *vector.Vector, lo int) {
	t.Helper()
	for i := range got.Len {
		if g, w := got.Value(i), want.Value(lo+i); g != w {
			t.Fatalf("%s row %d: %v, want %v", what, lo+i, g, w)
		}
	}
}

// A column of few values is kept as its byte side alone, counted at one
// byte a row, and a Get hands back the same values, nulls included, with
// the wide payload every operator reads.
func TestColCacheKeepsSmallColumnsAsBytes(t *testing.T) {
	const n = 4096
	for _, col := range []struct {
		name string
		v    *vector.Vector
		key  store.ColKey
	}{
		{"status", statusColumn(n), store.ColKey{Name: "status", Type: vector.Int}},
		{"method", methodColumn(n), store.ColKey{Name: "method", Type: vector.String}},
	} {
		c := NewColCache(1 << 30)
		k := colCacheKey{part: "p", Col: col.key}
		c.Put(k, col.v, 0)
		if wide := col.v.Bytes(); c.Used() > wide/3 {
			t.Errorf("%s: the cache holds %d bytes for a column of %d (%d rows): not packed", col.name, c.Used(), wide, n)
		}
		got := c.Get(k, 0)
		if got == nil {
			t.Fatalf("%s: missing after Put", col.name)
		}
		if col.name == "status" && len(got.Ints) != n || col.name == "method" && len(got.Codes) != n {
			t.Fatalf("%s: Get returned no wide payload (%d ints, %d codes)", col.name, len(got.Ints), len(got.Codes))
		}
		sameRows(t, col.name, got, col.v, 0)
		if codes, _ := got.Small(); len(codes) != n {
			t.Errorf("%s: Get dropped the byte side", col.name)
		}
	}
}

// A query that follows another over a packed column gets the wide copy
// the first one got, without widening again; once no query holds it the
// collector takes it back, and the cache still holds only the bytes.
func TestColCacheHandsOutOneWideCopy(t *testing.T) {
	c := NewColCache(1 << 30)
	k := colCacheKey{part: "p", Col: store.ColKey{Name: "status", Type: vector.Int}}
	decoded := statusColumn(4096)
	c.Put(k, decoded, 0)
	first := c.Get(k, 1)
	if first != decoded {
		t.Fatal("the next query widened the column again while the query that decoded it held it")
	}
	if again := c.Get(k, 2); again != first {
		t.Fatal("a second query widened the column again while the first held its copy")
	}
	decoded = nil
	used := c.Used()
	first = nil
	ent := c.Items[k].Value.(*ColCacheEntry)
	for range 3 {
		runtime.GC()
	}
	if ent.wide.Value() != nil {
		t.Error("the wide copy outlived every query that held it")
	}
	if c.Used() != used {
		t.Errorf("the cache counts %d bytes after the copy was dropped, %d before", c.Used(), used)
	}
	sameRows(t, "status", c.Get(k, 3), statusColumn(4096), 0)
}

// The paged scan reads a window of a column cached whole: only those rows
// are widened, from any row, and they are the column's.
func TestUnpackRowsWidensAWindow(t *testing.T) {
	const n = 4096
	for _, v := range []*vector.Vector{statusColumn(n), methodColumn(n)} {
		p := packColumn(v)
		if p == v {
			t.Fatalf("%v column not packed", v.Type)
		}
		for _, r := range [][2]int{{0, n}, {64, 128}, {100, 1000}, {4000, n}, {5, 6}} {
			got := unpackRows(p, r[0], r[1])
			if got.Len != r[1]-r[0] {
				t.Fatalf("rows %v: %d rows", r, got.Len)
			}
			if v.Type == vector.Int && len(got.Ints) > 2*got.Len+64 {
				t.Errorf("rows %v: widened %d rows", r, len(got.Ints))
			}
			sameRows(t, "window", got, v, r[0])
		}
	}
}

// Columns the byte side cannot rebuild are kept as they are: many
// distinct values, floats, plain strings, constants.
func TestPackColumnLeavesOthersWhole(t *testing.T) {
	wide := intColumn(5000).WithSmall()
	floats := &vector.Vector{Type: vector.Float, Len: 3, Floats: []float64{1, 2, 3}}
	plain := strColumn(3, func(i int) string { return "x" })
	for _, v := range []*vector.Vector{wide, floats, plain, vector.NewConst(vector.Int, int64(5), 100)} {
		if packColumn(v) != v {
			t.Errorf("%v column (%d rows) was packed", v.Type, v.Len)
		}
	}
}

// BenchmarkUnpackColumn is what a cache hit on a packed column of a
// million rows costs: the wide payload rebuilt from the byte side.
func BenchmarkUnpackColumn(b *testing.B) {
	for _, v := range []*vector.Vector{statusColumn(1 << 20), methodColumn(1 << 20)} {
		p := packColumn(v)
		b.Run(v.Type.String(), func(b *testing.B) {
			b.SetBytes(int64(p.Len))
			for b.Loop() {
				unpackColumn(p)
			}
		})
	}
}
