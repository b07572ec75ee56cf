package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// codecCase is an aggregation with representative arguments.
type codecCase struct {
	name string
	args func(rows int, r *rand.Rand) []*vector.Vector
}

func randCol(t vector.Type, rows int, r *rand.Rand, distinct int) *vector.Vector {
	v := vector.New(t, rows)
	for i := 0; i < rows; i++ {
		if r.IntN(10) == 0 {
			v.AppendNull()
			continue
		}
		k := r.IntN(distinct)
		switch t {
		case vector.Int, vector.DateTime, vector.TimeSpan:
			v.AppendInt(int64(k)*1_000_003 - 5000)
		case vector.Float:
			v.AppendFloat(float64(k)*0.37 - 3)
		case vector.String:
			v.AppendStr(fmt.Sprintf("s%d", k))
		case vector.Bool:
			v.AppendBool(k%2 == 0)
		case vector.Dynamic:
			// The mixed field: numbers, numeric strings, reals, words.
			v.AppendValue([]any{int64(k), fmt.Sprint(k), float64(k) / 4, fmt.Sprintf("w%d", k)}[k%4])
		}
	}
	return v
}

func constCol(x any, t vector.Type) *vector.Vector {
	v := vector.New(t, 1)
	v.AppendValue(x)
	v.Const = true
	return v
}

var codecCases = []codecCase{
	{"count", func(n int, r *rand.Rand) []*vector.Vector { return nil }},
	{"countif", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Bool, n, r, 2)} }},
	{"sum", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Int, n, r, 100)} }},
	{"sum", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Float, n, r, 100)} }},
	{"avg", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Int, n, r, 100)} }},
	{"avg", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Float, n, r, 100)} }},
	{"avgif", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.Float, n, r, 100), randCol(vector.Bool, n, r, 2)}
	}},
	{"min", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Float, n, r, 1000)} }},
	{"max", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Int, n, r, 1000)} }},
	{"max", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.String, n, r, 1000)}
	}},
	{"min", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.DateTime, n, r, 1000)}
	}},
	{"max", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.Dynamic, n, r, 1000)}
	}},
	{"percentile", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.Dynamic, n, r, 5000), constCol(int64(90), vector.Int)}
	}},
	{"stdev", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Float, n, r, 1000)} }},
	{"variance", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Int, n, r, 1000)} }},
	{"dcount", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.String, n, r, 50)} }},
	{"dcount", func(n int, r *rand.Rand) []*vector.Vector { return []*vector.Vector{randCol(vector.Int, n, r, 5000)} }},
	{"percentile", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.Float, n, r, 5000), constCol(int64(95), vector.Int)}
	}},
	{"percentile", func(n int, r *rand.Rand) []*vector.Vector {
		return []*vector.Vector{randCol(vector.Int, n, r, 5000), constCol(int64(50), vector.Int)}
	}},
}

// A state encoded on one node and decoded on another merges into the same
// answer as the state itself: for groups of every size (a few values, and
// enough to turn exact sets into sketches), groups with only nulls, and
// empty groups.
func TestCodecRoundTrip(t *testing.T) {
	const groupsN, rows = 40, 30000
	for i, c := range codecCases {
		t.Run(fmt.Sprintf("%s#%d", c.name, i), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			args := c.args(rows, r)
			groups := make([]uint32, rows)
			for k := range groups {
				groups[k] = uint32(r.IntN(groupsN - 5)) // the last 5 stay empty
				if k%3 == 0 {
					groups[k] = 0 // one large group
				}
			}
			h := rows / 2
			a, a2 := newState(t, c.name, args), newState(t, c.name, args)
			b := newState(t, c.name, args)
			for _, s := range []State{a, a2, b} {
				s.Grow(groupsN)
			}
			a.Update(args, seq(0, h), groups[:h])
			a2.Update(args, seq(0, h), groups[:h])
			b.Update(args, seq(h, rows), groups[h:])
			if !CanEncode(b) {
				t.Fatalf("%s cannot travel", c.name)
			}
			enc, err := b.(Codec).AppendState([]byte("prefix"), groupsN)
			if err != nil {
				t.Fatal(err)
			}
			dec := newState(t, c.name, args)
			n, err := dec.(Codec).DecodeState(enc[len("prefix"):])
			if err != nil || n != groupsN {
				t.Fatalf("decode: %d groups, %v", n, err)
			}
			into := make([]uint32, groupsN)
			for g := range into {
				into[g] = uint32(g)
			}
			a.Merge(b, into)
			a2.Merge(dec, into)
			want, got := a.Result(groupsN), a2.Result(groupsN)
			for col := range want {
				w, g := values(want[col]), values(got[col])
				for k := range w {
					if !testutil.CloseValue(g[k], w[k], 1e-9) {
						t.Fatalf("group %d: decoded %#v, original %#v", k, g[k], w[k])
					}
				}
			}
			for cut := 0; cut < len(enc)-len("prefix"); cut += max(1, (len(enc)-len("prefix"))/50) {
				fresh := newState(t, c.name, args)
				if _, err := fresh.(Codec).DecodeState(enc[len("prefix") : len("prefix")+cut]); err == nil {
					t.Fatalf("truncated to %d bytes: no error", cut)
				}
			}
		})
	}
}

// FuzzDecodeState feeds damaged encodings to every codec: an error, never
// a panic.
func FuzzDecodeState(f *testing.F) {
	for i, c := range codecCases {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		args := c.args(200, r)
		s := newState(f, c.name, args)
		s.Grow(3)
		groups := make([]uint32, 200)
		for k := range groups {
			groups[k] = uint32(k % 3)
		}
		s.Update(args, nil, groups)
		enc, _ := s.(Codec).AppendState(nil, 3)
		f.Add(uint8(i), enc)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		c := codecCases[int(which)%len(codecCases)]
		args := c.args(1, rand.New(rand.NewPCG(1, 1)))
		s := newState(t, c.name, args)
		if n, err := s.(Codec).DecodeState(data); err == nil {
			s.Grow(n)
			s.Result(n)
		}
	})
}

func BenchmarkCodecRoundTrip(b *testing.B) {
	const groupsN, rows = 10000, 200000
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"avg", "percentile"} {
		args := []*vector.Vector{randCol(vector.Float, rows, r, 100000)}
		if name == "percentile" {
			args = append(args, constCol(int64(95), vector.Int))
		}
		groups := make([]uint32, rows)
		for k := range groups {
			groups[k] = uint32(r.IntN(groupsN))
		}
		s := newState(b, name, args)
		s.Grow(groupsN)
		s.Update(args, nil, groups)
		enc, _ := s.(Codec).AppendState(nil, groupsN)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				e, _ := s.(Codec).AppendState(nil, groupsN)
				d := newState(b, name, args)
				if _, err := d.(Codec).DecodeState(e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
