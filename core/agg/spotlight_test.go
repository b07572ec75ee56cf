package agg

import (
	"testing"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

func TestSpotlight(t *testing.T) {
	// Errors (status >= 500) come mostly from POST /checkout.
	isErr := col(vector.Bool, true, true, false, false, false, false, nil, true)
	method := col(vector.String, "POST", "POST", "GET", "GET", "GET", "POST", "GET", "GET")
	uri := dictCol("/checkout", "/checkout", "/home", "/home", "/cart", "/home", "/home", "/checkout")
	res := run(t, "spotlight", 2, []uint32{0, 0, 0, 0, 0, 0, 0, 0}, isErr, method, uri)
	got := values(res[0])
	arr := got[0].([]any)
	top := arr[0].(map[string]any)
	// 3 selected rows, 5 baseline (the null predicate is baseline).
	// /checkout: 3/3 selected vs 0/5 baseline: score 1, lift null.
	want := map[string]any{
		"field": int64(2), "value": "/checkout", "selected": int64(3), "baseline": int64(0),
		"selected_ratio": 1.0, "baseline_ratio": 0.0, "lift": nil, "score": 1.0,
	}
	if !testutil.CloseValue(top, want, 1e-9) {
		t.Errorf("top = %v, want %v", top, want)
	}
	second := arr[1].(map[string]any)
	// /home: 0 selected vs 4/5 baseline: score 0.8.
	if second["value"] != "/home" || !testutil.CloseValue(second["score"], 0.8, 1e-9) {
		t.Errorf("second = %v", second)
	}
	// POST: 2/3 vs 1/5, lift (2/3)/(1/5).
	for _, e := range arr {
		m := e.(map[string]any)
		if m["field"] == int64(1) && m["value"] == "POST" && !testutil.CloseValue(m["lift"], (2.0/3)/(1.0/5), 1e-9) {
			t.Errorf("POST lift = %v", m["lift"])
		}
	}
	if len(got[1].([]any)) != 0 {
		t.Errorf("empty group = %v", got[1])
	}
	if _, err := Lookup("spotlight").Result([]vector.Type{vector.String, vector.String}); err == nil {
		t.Error("spotlight accepted a string predicate")
	}
}

func TestSpotlightMerge(t *testing.T) {
	fx := newFixture(500, 3)
	checkMerge(t, "spotlight", fx.n, fx.groups, fx.b, fx.s, fx.i, fx.ts)
}
