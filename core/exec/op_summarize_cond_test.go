package exec

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// condBenchColumns are the kernel benchmarks' columns: longs in [0, 600),
// bools about 3/7 true, and 8 groups.
func condBenchColumns(n int) ([]int64, []bool, []uint32) {
	ints := make([]int64, n)
	bools := make([]bool, n)
	groups := make([]uint32, n)
	for i := range n {
		ints[i] = int64(i*7919) % 600
		bools[i] = (i*31)%7 < 3
		groups[i] = uint32(i*13) % 8
	}
	return ints, bools, groups
}

// BenchmarkCondSelect times the fused predicate kernel over 64Ki rows in
// 8 groups: a long compared with a constant and a bool column.
func BenchmarkCondSelect(b *testing.B) {
	const n = 1 << 16
	ints, bools, groups := condBenchColumns(n)
	for _, c := range []struct {
		name string
		f    *condFilter
		v    *vector.Vector
	}{
		{"long", &condFilter{kind: vector.Int, lo: 500, hi: math.MaxInt64}, &vector.Vector{Type: vector.Int, Len: n, Ints: ints}},
		{"bool", &condFilter{kind: vector.Bool, want: false}, &vector.Vector{Type: vector.Bool, Len: n, Bools: bools}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var os []int32
			var og []uint32
			b.SetBytes(n * 8)
			b.ReportAllocs()
			for b.Loop() {
				os, og, _ = c.f.selectTrue(c.v, nil, groups, os[:0], og[:0])
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// laneTotals is a CountAdder that keeps per-group totals; the rest of
// agg.State is never called by countLanes.
type laneTotals struct {
	agg.State
	n []int64
}

func (c laneTotals) AddCount(g uint32, n int64) { c.n[g] += n }

func newLaneTotals(groups int) laneTotals { return laneTotals{n: make([]int64, groups)} }

// BenchmarkCondCountLanes times countif's lane kernel over 64Ki rows in 8
// groups, dense and through a selection of every other row.
func BenchmarkCondCountLanes(b *testing.B) {
	const n = 1 << 16
	ints, bools, groups := condBenchColumns(n)
	half := make([]int32, 0, n/2)
	for i := 0; i < n; i += 2 {
		half = append(half, int32(i))
	}
	for _, c := range []struct {
		name string
		f    *condFilter
		v    *vector.Vector
	}{
		{"long", &condFilter{kind: vector.Int, lo: 500, hi: math.MaxInt64}, &vector.Vector{Type: vector.Int, Len: n, Ints: ints}},
		{"bool", &condFilter{kind: vector.Bool, want: false}, &vector.Vector{Type: vector.Bool, Len: n, Bools: bools}},
	} {
		for _, s := range []struct {
			name string
			sel  []int32
		}{{"dense", nil}, {"sel", half}} {
			b.Run(c.name+"/"+s.name, func(b *testing.B) {
				cr := &condRun{f: c.f, counter: newLaneTotals(8)}
				g := groups
				if s.sel != nil {
					g = groups[:len(s.sel)]
				}
				b.SetBytes(int64(len(g)) * 8)
				b.ReportAllocs()
				for b.Loop() {
					cr.countLanes(c.v, s.sel, g, 8)
				}
				b.ReportMetric(float64(len(g))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// TestCondCountLanes checks the lane kernel against a plain count, dense
// and through a selection, for each column kind.
func TestCondCountLanes(t *testing.T) {
	const n = 1000
	ints := make([]int64, n)
	floats := make([]float64, n)
	bools := make([]bool, n)
	groups := make([]uint32, n)
	for i := range n {
		ints[i] = int64(i*7919) % 600
		floats[i] = float64(ints[i]) / 3
		bools[i] = (i*31)%7 < 3
		groups[i] = uint32(i*13) % 5
	}
	var sel []int32
	for i := 0; i < n; i += 3 {
		sel = append(sel, int32(i))
	}
	cases := []struct {
		f    *condFilter
		v    *vector.Vector
		hold func(r int) bool
	}{
		{&condFilter{kind: vector.Int, lo: 500, hi: math.MaxInt64}, &vector.Vector{Type: vector.Int, Len: n, Ints: ints}, func(r int) bool { return ints[r] >= 500 }},
		{&condFilter{kind: vector.Int, lo: 100, hi: 200, neg: true}, &vector.Vector{Type: vector.Int, Len: n, Ints: ints}, func(r int) bool { return ints[r] < 100 || ints[r] > 200 }},
		{&condFilter{kind: vector.Float, flo: 10, fhi: 50}, &vector.Vector{Type: vector.Float, Len: n, Floats: floats}, func(r int) bool { return floats[r] >= 10 && floats[r] <= 50 }},
		{&condFilter{kind: vector.Bool, want: false}, &vector.Vector{Type: vector.Bool, Len: n, Bools: bools}, func(r int) bool { return !bools[r] }},
	}
	for ci, c := range cases {
		for _, s := range [][]int32{nil, sel} {
			got := newLaneTotals(5)
			cr := &condRun{f: c.f, counter: got}
			g := groups
			if s != nil {
				g = make([]uint32, len(s))
				for k, r := range s {
					g[k] = groups[r]
				}
			}
			if !cr.countLanes(c.v, s, g, 5) {
				t.Fatalf("case %d: countLanes refused", ci)
			}
			want := newLaneTotals(5)
			for k := range g {
				r := k
				if s != nil {
					r = int(s[k])
				}
				if c.hold(r) {
					want.n[g[k]]++
				}
			}
			if fmt.Sprint(got.n) != fmt.Sprint(want.n) {
				t.Fatalf("case %d sel=%v: got %v, want %v", ci, s != nil, got.n, want.n)
			}
		}
	}
}

// BenchmarkFusedCount times the fused counting kernel of two countifs (a
// long against a constant, a bool) by a dictionary key of 10 values, over
// 64Ki rows (in cache) and 8Mi rows (streamed from memory, as at 10M
// events), reading the key's and the long's columns ("wide") or their
// one-byte sides ("small").
func BenchmarkFusedCount(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 23} {
		ints, bools, _ := condBenchColumns(n)
		codes := make([]uint32, n)
		for i := range codes {
			codes[i] = uint32(i*13) % 10
		}
		key := &vector.Vector{Type: vector.String, Len: n, Dict: strings.Fields("a b c d e f g h i j"), Codes: codes}
		iv := &vector.Vector{Type: vector.Int, Len: n, Ints: ints}
		for _, side := range []string{"wide", "small"} {
			k, v := key, iv
			if side == "small" {
				k, v = key.WithSmall(), iv.WithSmall()
			}
			fc := &fusedCount{
				filters: []*condFilter{{kind: vector.Int, lo: 500, hi: math.MaxInt64}, {kind: vector.Bool, want: false}},
				pcols:   []*vector.Vector{v, {Type: vector.Bool, Len: n, Bools: bools}},
				hist:    new(fuseArray),
			}
			b.Run(fmt.Sprint(side, "/", n), func(b *testing.B) {
				b.SetBytes(k.Bytes() + v.Bytes() + int64(n))
				b.ReportAllocs()
				for b.Loop() {
					fc.count(k, nil, n, 2)
					clear(fc.hist[:])
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
