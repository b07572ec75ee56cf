package fn

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

// selPropRows is the physical size of the batches the selection property
// test builds; small, so that every function runs many times.
const selPropRows = 48

// selPropTypes are the argument types the property test tries.
var selPropTypes = []vector.Type{vector.Bool, vector.Int, vector.Float, vector.String, vector.DateTime, vector.TimeSpan, vector.Dynamic, vector.Null}

// selPropStrings are strings most function families can make something
// of: words, addresses, ranges, times, numbers, JSON, URLs, CSV.
var selPropStrings = []string{
	"", "abc", "Hello World", "a,b,c", "192.168.1.10", "10.0.0.0/8", "2001:db8::1", "::1/128",
	"2024-03-01T10:00:00Z", "2024-03-01", "42", "-3.5", "true", `{"a":1,"b":[1,2],"c":"x"}`,
	"[1,2,3]", "https://example.com/a/b?x=1&y=2#f", "1h", "ÄÖü ß", `a"b\c`, "key=value; other=2",
}

// selPropValue returns a random value of type t, or nil for null.
func selPropValue(r *rand.Rand, t vector.Type) any {
	if r.IntN(6) == 0 {
		return nil
	}
	switch t {
	case vector.Bool:
		return r.IntN(2) == 0
	case vector.Int:
		return []int64{-7, -1, 0, 1, 2, 3, 5, 16, 100, 1_000_000_007}[r.IntN(10)]
	case vector.Float:
		return []float64{-2.5, -1, 0, 0.25, 1, 1.5, 3.75, 1e6}[r.IntN(8)]
	case vector.String:
		return selPropStrings[r.IntN(len(selPropStrings))]
	case vector.DateTime:
		return time.Date(2024, 3, 1+r.IntN(60), r.IntN(24), r.IntN(60), 0, 0, time.UTC).UnixNano()
	case vector.TimeSpan:
		return int64(r.IntN(100_000)) * int64(time.Millisecond)
	case vector.Dynamic:
		return []any{
			[]any{int64(1), int64(2), int64(3)}, []any{"a", "b"}, []any{1.5, int64(-2), nil},
			map[string]any{"a": int64(1), "b": "x"}, "text", int64(7), 2.5, true,
			[]any{map[string]any{"k": "v", "n": int64(3)}},
		}[r.IntN(9)]
	}
	return nil
}

// selPropVector returns a random column of n rows of type t with nulls:
// plain, dictionary encoded (strings, one time in three) or Const (one
// time in five).
func selPropVector(r *rand.Rand, t vector.Type, n int) *vector.Vector {
	if t == vector.Null {
		return vector.NewNulls(vector.Null, n)
	}
	if r.IntN(5) == 0 {
		return vector.NewConst(t, selPropValue(r, t), n)
	}
	v := vector.New(t, n)
	for i := 0; i < n; i++ {
		v.AppendValue(selPropValue(r, t))
	}
	if t == vector.String && r.IntN(3) == 0 {
		return selPropDict(v)
	}
	return v
}

// selPropDict dictionary-encodes a plain string column.
func selPropDict(v *vector.Vector) *vector.Vector {
	d := &vector.Vector{Type: vector.String, Len: v.Len, Valid: v.Valid, Codes: make([]uint32, v.Len)}
	code := map[string]uint32{}
	for i, s := range v.Strs {
		c, ok := code[s]
		if !ok {
			c = uint32(len(d.Dict))
			code[s] = c
			d.Dict = append(d.Dict, s)
		}
		d.Codes[i] = c
	}
	return d
}

// selPropSel returns a random ascending selection of n rows: empty, one
// row, a few, about half or all but one.
func selPropSel(r *rand.Rand, n int) []int32 {
	keep := []int{0, 1, 4, 50, 97}[r.IntN(5)]
	sel := []int32{}
	for i := 0; i < n; i++ {
		if r.IntN(100) < keep || (keep == 1 && len(sel) == 0 && i == n-1) {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// selPropSpoil overwrites the dead rows of v (not in sel) with other
// random values, so a function that reads a dead row to compute a live
// one gives a different answer. Const vectors stay as they are.
func selPropSpoil(r *rand.Rand, v *vector.Vector, sel []int32) *vector.Vector {
	if v.Const || v.Type == vector.Null {
		return v
	}
	live := make([]bool, v.Len)
	for _, i := range sel {
		live[i] = true
	}
	out := vector.New(v.Type, v.Len)
	for i := 0; i < v.Len; i++ {
		if live[i] {
			out.AppendFrom(v, i)
		} else {
			out.AppendValue(selPropValue(r, v.Type))
		}
	}
	if v.Codes != nil {
		out.Decode()
		return selPropDict(out)
	}
	return out
}

// selPropShow renders row i of v for comparison; %v prints NaN as NaN and
// maps with sorted keys, so equal values render equal.
func selPropShow(v *vector.Vector, i int) string {
	if v.IsNull(i) {
		return "null"
	}
	return fmt.Sprintf("%T %v", v.Value(i), v.Value(i))
}

// Every registry function, over random arguments with nulls and a random
// selection, computes on the live rows what it computes over those rows
// alone, and the batch's dead rows (spoiled with other values) do not
// change any live row. This is Rows' contract: live rows written, dead
// rows never read.
func TestFuncsSelectionEqualsDense(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 6))
	ctx := &Context{Now: time.Date(2024, 3, 27, 0, 0, 0, 0, time.UTC), Rand: 1}
	checked := 0
	for _, f := range All() {
		if f.Volatile {
			continue
		}
		for trial := 0; trial < 60; trial++ {
			nargs := f.MinArgs + r.IntN(3)
			if f.MaxArgs >= 0 && nargs > f.MaxArgs {
				nargs = f.MaxArgs
			}
			types := make([]vector.Type, nargs)
			for i := range types {
				types[i] = selPropTypes[r.IntN(len(selPropTypes))]
			}
			if _, err := f.Result(types); err != nil {
				continue
			}
			sel := selPropSel(r, selPropRows)
			args := make([]*vector.Vector, nargs)
			dense := make([]*vector.Vector, nargs)
			for i, t := range types {
				args[i] = selPropSpoil(r, selPropVector(r, t, selPropRows), sel)
				dense[i] = args[i].Gather(sel)
			}
			want, werr := f.Eval(ctx, dense, Dense(len(sel)))
			got, gerr := f.Eval(ctx, args, Rows{N: selPropRows, Sel: sel})
			if werr != nil {
				continue // an error over the live rows may or may not show over a selection of them
			}
			if gerr != nil {
				t.Fatalf("%s%v over %d of %d rows: %v (over the live rows alone: no error)", f.Name, types, len(sel), selPropRows, gerr)
			}
			if got.Len != selPropRows && !got.Const {
				t.Fatalf("%s%v: %d rows, want %d", f.Name, types, got.Len, selPropRows)
			}
			for k, i := range sel {
				if g, w := selPropShow(got, int(i)), selPropShow(want, k); g != w {
					t.Fatalf("%s%v row %d (live %d of %d): %s over the selection, %s over the live rows alone", f.Name, types, i, k, len(sel), g, w)
				}
			}
			checked++
		}
	}
	t.Logf("%d calls compared", checked)
	if checked < 2000 {
		t.Fatalf("only %d calls compared: the generator does not reach the functions", checked)
	}
}

// sumLive and sumPlain are the same row loop written with Rows.Live and
// by hand, for BenchmarkRowsLive.
func sumLive(r Rows, xs []int64) int64 {
	var s int64
	for i := range r.Live() {
		s += xs[i] * 3
	}
	return s
}

func sumPlain(r Rows, xs []int64) int64 {
	var s int64
	if r.Sel == nil {
		for i := 0; i < r.N; i++ {
			s += xs[i] * 3
		}
		return s
	}
	for _, j := range r.Sel {
		s += xs[j] * 3
	}
	return s
}

var benchSink int64

// BenchmarkRowsLive compares the Rows.Live loop with the loop written out
// for dense and selective rows: the iterator and its body are inlined, no
// call per row.
func BenchmarkRowsLive(b *testing.B) {
	xs := make([]int64, vector.BatchSize)
	var half []int32
	for i := 0; i < vector.BatchSize; i += 2 {
		half = append(half, int32(i))
	}
	for _, c := range []struct {
		name string
		rows Rows
	}{{"all", Dense(vector.BatchSize)}, {"half", Rows{N: vector.BatchSize, Sel: half}}} {
		for _, l := range []struct {
			name string
			f    func(Rows, []int64) int64
		}{{"Live", sumLive}, {"written-out", sumPlain}} {
			b.Run(c.name+"/"+l.name, func(b *testing.B) {
				b.SetBytes(int64(c.rows.Count()) * 8)
				b.ReportAllocs()
				for b.Loop() {
					benchSink += l.f(c.rows, xs)
				}
				b.ReportMetric(float64(c.rows.Count())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
