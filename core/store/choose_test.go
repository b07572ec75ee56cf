package store

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestLargeColumnsChooseByStats round-trips columns big enough that the
// writer judges compression from a sample rather than by compressing the
// whole body, and checks it still picks what pays: a compressor for
// repetitive data, none for random ids, and the tight packing where
// compression cannot help.
func TestLargeColumnsChooseByStats(t *testing.T) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		name       string
		t          vector.Type
		gen        func(i int) any
		compressed bool // whether the blob must be compressed
		maxPerRow  float64
	}{
		{"lowcard-strings", vector.String, func(i int) any { return []string{"GET", "GET", "GET", "GET", "GET", "GET", "POST", "PUT"}[rng.IntN(8)] }, true, 0.2},
		{"random-hex", vector.String, func(i int) any { return fmt.Sprintf("%016x", rng.Uint64()) }, false, 8.1},
		{"uris", vector.String, func(i int) any { return fmt.Sprintf("/api/v1/users/%d/profile", rng.IntN(5000)) }, true, 2.8},
		{"sorted-times", vector.DateTime, func(i int) any { return int64(1.7e18) + int64(i)*1_000_000 + rng.Int64N(1000)*1000 }, false, 1.4},
		{"status", vector.Int, func(i int) any { return []int64{200, 200, 200, 404, 500}[rng.IntN(5)] }, true, 0.3},
		{"random-ints", vector.Int, func(i int) any { return rng.Int64() }, false, 8.1},
		{"decimals", vector.Float, func(i int) any { return float64(rng.IntN(100000)) / 1000 }, false, 2.2},
		{"random-floats", vector.Float, func(i int) any { return rng.NormFloat64() }, false, 8.1},
		{"sparse", vector.String, func(i int) any {
			if i%7 == 0 {
				return nil
			}
			return []string{"a", "b"}[i%2]
		}, true, 0.5},
	}
	for _, c := range cases {
		vals := make([]any, n)
		for i := range vals {
			vals[i] = c.gen(i)
		}
		v := vecOf(c.t, vals...)
		blob, _, err := encodeColumn(nil, c.t, v, n)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := decodeColumn("test", 0, blob, c.t, n)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkVec(t, c.name, got, v)
		if (blob[0] != compNone) != c.compressed {
			t.Errorf("%s: compression %d, want compressed=%v", c.name, blob[0], c.compressed)
		}
		if per := float64(len(blob)) / n; per > c.maxPerRow {
			t.Errorf("%s: %.2f bytes per row, want at most %.2f", c.name, per, c.maxPerRow)
		}
	}
}

// TestStrIndex numbers distinct strings densely through several table
// growths, finds every one again and none that was never added.
func TestStrIndex(t *testing.T) {
	x := newStrIndex(0)
	for round := 0; round < 2; round++ {
		for i := 0; i < 5000; i++ {
			c, added := x.code(fmt.Sprint("v", i))
			if c != uint32(i) || added != (round == 0) {
				t.Fatalf("round %d: code(v%d) = %d, %v", round, i, c, added)
			}
		}
	}
	if x.len() != 5000 {
		t.Fatalf("len %d, want 5000", x.len())
	}
	if c, ok := x.lookup("v4999"); !ok || c != 4999 {
		t.Fatalf("lookup(v4999) = %d, %v", c, ok)
	}
	if _, ok := x.lookup("w1"); ok {
		t.Fatal("lookup found a string never added")
	}
	if c, _ := x.code(""); c != 5000 {
		t.Fatalf("empty string got code %d", c)
	}
}
