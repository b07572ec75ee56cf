package agg

import (
	"math/rand"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// col builds a plain vector of type t; a nil value is a null row.
func col(t vector.Type, vals ...any) *vector.Vector {
	v := vector.New(t, len(vals))
	for _, x := range vals {
		v.AppendValue(x)
	}
	return v
}

// dictCol builds a dictionary-encoded string vector; nil is null.
func dictCol(vals ...any) *vector.Vector {
	v := &vector.Vector{Type: vector.String, Len: len(vals), Codes: make([]uint32, len(vals))}
	index := map[string]uint32{}
	for i, x := range vals {
		if x == nil {
			if v.Valid == nil {
				v.Valid = vector.NewBitmapSet(len(vals))
			}
			v.Valid.Clear(i)
			if len(v.Dict) == 0 {
				v.Dict = append(v.Dict, "")
				index[""] = 0
			}
			continue
		}
		s := x.(string)
		c, ok := index[s]
		if !ok {
			c = uint32(len(v.Dict))
			v.Dict = append(v.Dict, s)
			index[s] = c
		}
		v.Codes[i] = c
	}
	return v
}

// newState creates the state of aggregation name for the argument vectors,
// passing the values of constant arguments as the planner would.
func newState(t testing.TB, name string, args []*vector.Vector) State {
	t.Helper()
	spec := Lookup(name)
	if spec == nil {
		t.Fatalf("%s is not registered", name)
	}
	types := make([]vector.Type, len(args))
	consts := make([]any, len(args))
	for i, a := range args {
		types[i] = a.Type
		if a.Const {
			consts[i] = a.Value(0)
		}
	}
	if _, err := spec.Result(types); err != nil {
		t.Fatalf("%s.Result: %v", name, err)
	}
	st, err := spec.New(&Context{}, types, consts)
	if err != nil {
		t.Fatalf("%s.New: %v", name, err)
	}
	return st
}

// run aggregates args (all rows, groups[k] for row k) into n groups.
func run(t testing.TB, name string, n int, groups []uint32, args ...*vector.Vector) []*vector.Vector {
	t.Helper()
	st := newState(t, name, args)
	st.Grow(n)
	st.Update(args, nil, groups)
	return st.Result(n)
}

// values returns the rows of v boxed.
func values(v *vector.Vector) []any {
	out := make([]any, v.Len)
	for i := range out {
		out[i] = v.Value(i)
	}
	return out
}

// expect checks the rows of v against want.
func expect(t testing.TB, what string, v *vector.Vector, want ...any) {
	t.Helper()
	got := values(v)
	if len(got) != len(want) {
		t.Fatalf("%s: got %d rows %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range want {
		if !testutil.CloseValue(got[i], want[i], 1e-9) {
			t.Errorf("%s: row %d = %#v, want %#v", what, i, got[i], want[i])
		}
	}
}

// checkMerge aggregates args in one pass and again split over two states
// whose group ids differ (the second numbers groups backwards and sees its
// rows through a selection, in two batches), merges them, and requires the
// same result. It is the contract parallel scans rely on.
func checkMerge(t *testing.T, name string, n int, groups []uint32, args ...*vector.Vector) {
	t.Helper()
	want := run(t, name, n, groups, args...)

	rows := len(groups)
	h := rows / 3
	a := newState(t, name, args)
	a.Grow(n)
	a.Update(args, seq(0, h), groups[:h])

	b := newState(t, name, args)
	b.Grow(n)
	rev := func(g uint32) uint32 { return uint32(n-1) - g }
	for _, part := range [][2]int{{h, (h + rows) / 2}, {(h + rows) / 2, rows}} {
		bg := make([]uint32, 0, part[1]-part[0])
		for _, g := range groups[part[0]:part[1]] {
			bg = append(bg, rev(g))
		}
		b.Update(args, seq(part[0], part[1]), bg)
	}
	into := make([]uint32, n)
	for g := range into {
		into[g] = rev(uint32(g))
	}
	a.Merge(b, into)
	got := a.Result(n)
	if len(got) != len(want) {
		t.Fatalf("%s merge: %d columns, want %d", name, len(got), len(want))
	}
	for c := range want {
		w, g := values(want[c]), values(got[c])
		for i := range w {
			if !testutil.CloseValue(g[i], w[i], 1e-9) {
				t.Errorf("%s merge: column %d group %d = %#v, one pass gives %#v", name, c, i, g[i], w[i])
			}
		}
	}
}

func seq(from, to int) []int32 {
	out := make([]int32, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, int32(i))
	}
	return out
}

// fixture is a deterministic table with nulls in every column, used by the
// registry-wide tests.
type fixture struct {
	n                       int
	groups                  []uint32
	f, i, s, b, dt, ts, bag *vector.Vector
}

func newFixture(rows, ngroups int) *fixture {
	r := rand.New(rand.NewSource(7))
	fx := &fixture{n: ngroups}
	var f, i, s, b, dt, ts, bag []any
	words := []string{"GET", "POST", "PUT", "DELETE", "HEAD", "a b c", "x y", "the quick fox"}
	for k := 0; k < rows; k++ {
		fx.groups = append(fx.groups, uint32(r.Intn(ngroups)))
		null := r.Intn(10) == 0
		pick := func(x any) any {
			if null {
				return nil
			}
			return x
		}
		f = append(f, pick(r.NormFloat64()*100+500))
		i = append(i, pick(int64(r.Intn(50))))
		s = append(s, pick(words[r.Intn(len(words))]))
		b = append(b, pick(r.Intn(2) == 0))
		dt = append(dt, pick(time.Unix(1700000000+int64(r.Intn(3600)), 0).UTC()))
		ts = append(ts, pick(time.Duration(r.Intn(5000))*time.Millisecond))
		bag = append(bag, pick(map[string]any{words[r.Intn(4)]: int64(k)}))
	}
	fx.f, fx.i, fx.s = col(vector.Float, f...), col(vector.Int, i...), dictCol(s...)
	fx.b, fx.dt, fx.ts = col(vector.Bool, b...), col(vector.DateTime, dt...), col(vector.TimeSpan, ts...)
	fx.bag = col(vector.Dynamic, bag...)
	return fx
}

func cnst(t vector.Type, x any, n int) *vector.Vector { return vector.NewConst(t, x, n) }
