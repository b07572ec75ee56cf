package agg

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/aplite/aplite/vector"
)

// entry is one element of a topk result.
func entry(key any, count, errBound int64) map[string]any {
	return map[string]any{"key": key, "count": count, "error": errBound}
}

func TestTopk(t *testing.T) {
	// The axiom-go integration test shape: topk(remote_ip, 1) gives
	// [{key, count, error}].
	ip := dictCol("93.180.71.1", "10.0.0.1", "93.180.71.1", nil, "93.180.71.1", "10.0.0.2", "10.0.0.1")
	res := run(t, "topk", 1, make([]uint32, 7), ip, cnst(vector.Int, int64(1), 7))
	expect(t, "top1", res[0], []any{entry("93.180.71.1", 3, 0)})

	// Descending counts, ties by key; groups apart; empty group [].
	status := col(vector.Int, int64(200), int64(404), int64(200), int64(500), int64(404), int64(200), int64(301))
	res = run(t, "topk", 3, []uint32{0, 0, 0, 0, 0, 0, 1}, status, cnst(vector.Int, int64(3), 7))
	expect(t, "status", res[0],
		[]any{entry(int64(200), 3, 0), entry(int64(404), 2, 0), entry(int64(500), 1, 0)},
		[]any{entry(int64(301), 1, 0)},
		[]any{})

	// topkif counts only rows where the predicate holds.
	p := col(vector.Bool, false, true, false, true, true, false, true)
	res = run(t, "topkif", 1, make([]uint32, 7), status, cnst(vector.Int, int64(1), 7), p)
	expect(t, "topkif", res[0], []any{entry(int64(404), 2, 0)})

	res = run(t, "topk", 1, make([]uint32, 3), col(vector.Dynamic, map[string]any{"a": int64(1)}, map[string]any{"a": int64(1)}, "x"), cnst(vector.Int, int64(1), 3))
	expect(t, "dynamic", res[0], []any{entry(map[string]any{"a": 1.0}, 2, 0)})

	if _, err := Lookup("topk").New(&Context{}, []vector.Type{vector.Int, vector.Int}, []any{nil, int64(0)}); err == nil {
		t.Error("topk accepted k = 0")
	}
}

// TestTopkBeyondCapacity streams far more distinct keys than the summary
// holds, with a few heavy hitters: they must come out first, each count
// within its error of the truth.
func TestTopkBeyondCapacity(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var vals []any
	truth := map[string]int64{}
	for i := 0; i < 60000; i++ {
		var k string
		switch x := r.Intn(100); {
		case x < 20:
			k = "heavy-a"
		case x < 32:
			k = "heavy-b"
		case x < 40:
			k = "heavy-c"
		default:
			k = fmt.Sprintf("tail-%d", r.Intn(20000))
		}
		truth[k]++
		vals = append(vals, k)
	}
	res := run(t, "topk", 1, make([]uint32, len(vals)), col(vector.String, vals...), cnst(vector.Int, int64(3), len(vals)))
	got := values(res[0])[0].([]any)
	for i, want := range []string{"heavy-a", "heavy-b", "heavy-c"} {
		e := got[i].(map[string]any)
		c, eb := e["count"].(int64), e["error"].(int64)
		if e["key"] != want || c < truth[want] || c-eb > truth[want] {
			t.Errorf("rank %d: %v, true count of %s is %d", i, e, want, truth[want])
		}
	}
}

func TestTopkMerge(t *testing.T) {
	fx := newFixture(600, 4)
	k := func(n int64) *vector.Vector { return cnst(vector.Int, n, 600) }
	checkMerge(t, "topk", fx.n, fx.groups, fx.s, k(3))
	checkMerge(t, "topk", fx.n, fx.groups, fx.i, k(5))
	checkMerge(t, "topkif", fx.n, fx.groups, fx.f, k(2), fx.b)
}

// TestTopkMergeFullSummaries merges two summaries that both overflowed:
// the heavy hitters must survive with counts that bound the truth.
func TestTopkMergeFullSummaries(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	truth := map[string]int64{}
	mk := func(n int) *vector.Vector {
		var vals []any
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("tail-%d", r.Intn(5000))
			if r.Intn(4) == 0 {
				k = "heavy"
			}
			truth[k]++
			vals = append(vals, k)
		}
		return col(vector.String, vals...)
	}
	k := cnst(vector.Int, int64(1), 0)
	a, b := newState(t, "topk", []*vector.Vector{mk(0), k}), newState(t, "topk", []*vector.Vector{mk(0), k})
	a.Grow(1)
	b.Grow(1)
	xa, xb := mk(20000), mk(20000)
	a.Update([]*vector.Vector{xa, k}, nil, make([]uint32, xa.Len))
	b.Update([]*vector.Vector{xb, k}, nil, make([]uint32, xb.Len))
	a.Merge(b, []uint32{0})
	e := values(a.Result(1)[0])[0].([]any)[0].(map[string]any)
	c, eb := e["count"].(int64), e["error"].(int64)
	if e["key"] != "heavy" || c < truth["heavy"] || c-eb > truth["heavy"] {
		t.Errorf("merged top = %v, true heavy count %d", e, truth["heavy"])
	}
}
