package vector

import (
	"math"
	"testing"
)

// TestWithSmall: a long column of few values and a small dictionary get a
// one-byte side that reads back every row, null slots included; a column
// of more than SmallLimit values (in its first rows or only later), a
// constant and a large dictionary get none.
func TestWithSmall(t *testing.T) {
	xs := make([]int64, 10000)
	vals := []int64{200, 404, -7, math.MinInt64, math.MaxInt64, 0, 503}
	for i := range xs {
		xs[i] = vals[(i*i+i/3)%len(vals)]
	}
	v := &Vector{Type: Int, Len: len(xs), Ints: xs, Valid: NewBitmapSet(len(xs))}
	v.Valid.Clear(5)
	s := v.WithSmall()
	codes, sv := s.Small()
	if codes == nil || s == v {
		t.Fatal("no side for a column of 7 values")
	}
	if c, _ := v.Small(); c != nil {
		t.Fatal("WithSmall changed its receiver")
	}
	for i, x := range xs {
		if sv[codes[i]] != x {
			t.Fatalf("row %d: side reads %d, want %d", i, sv[codes[i]], x)
		}
	}
	if s.Bytes() != v.Bytes()+int64(len(xs))+int64(len(sv))*8 {
		t.Errorf("Bytes %d does not count the side (%d without)", s.Bytes(), v.Bytes())
	}
	if s.WithSmall() != s {
		t.Error("a second WithSmall copied the vector")
	}

	many := make([]int64, 10000)
	late := make([]int64, 10000)
	for i := range many {
		many[i] = int64(i)
		late[i] = int64(i % 3)
		if i > smallSample {
			late[i] = int64(i)
		}
	}
	for name, w := range map[string]*Vector{
		"many values":       {Type: Int, Len: len(many), Ints: many},
		"many values later": {Type: Int, Len: len(late), Ints: late},
		"constant":          NewConst(Int, int64(3), 100),
		"real":              {Type: Float, Len: 2, Floats: []float64{1, 2}},
	} {
		if c, _ := w.WithSmall().Small(); c != nil {
			t.Errorf("%s: got a side", name)
		}
	}

	dict := &Vector{Type: String, Len: 6, Dict: []string{"a", "b", "c"}, Codes: []uint32{2, 0, 1, 1, 2, 0}}
	dc, dv := dict.WithSmall().Small()
	if dc == nil || dv != nil {
		t.Fatal("no byte codes for a dictionary of 3")
	}
	for i, c := range dict.Codes {
		if uint32(dc[i]) != c {
			t.Fatalf("row %d: byte code %d, want %d", i, dc[i], c)
		}
	}
	big := &Vector{Type: String, Len: 1, Dict: make([]string, SmallLimit+1), Codes: []uint32{SmallLimit}}
	if c, _ := big.WithSmall().Small(); c != nil {
		t.Error("a dictionary past SmallLimit got byte codes")
	}
}

// TestSmallSliceGather: Slice carries the side over, row for row; Gather
// and Scatter build vectors without one, and a vector whose codes were
// dropped (decoded in place) reports none.
func TestSmallSliceGather(t *testing.T) {
	xs := make([]int64, 300)
	for i := range xs {
		xs[i] = int64(i % 5 * 100)
	}
	v := (&Vector{Type: Int, Len: len(xs), Ints: xs}).WithSmall()
	sl := v.Slice(64, 200)
	codes, vals := sl.Small()
	if len(codes) != 136 {
		t.Fatalf("slice side has %d rows, want 136", len(codes))
	}
	for i := range 136 {
		if vals[codes[i]] != xs[64+i] {
			t.Fatalf("slice row %d: side %d, want %d", i, vals[codes[i]], xs[64+i])
		}
	}
	if c, _ := v.Gather([]int32{3, 1}).Small(); c != nil {
		t.Error("Gather kept a side")
	}
	if c, _ := v.Slice(0, 2).Scatter([]int32{0, 2}, 3).Small(); c != nil {
		t.Error("Scatter kept a side")
	}
	d := (&Vector{Type: String, Len: 3, Dict: []string{"x", "y"}, Codes: []uint32{1, 0, 1}}).WithSmall()
	d.Decode()
	if c, _ := d.Small(); c != nil {
		t.Error("a decoded dictionary column still reports byte codes")
	}
}
