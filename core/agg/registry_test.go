package agg

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// apiNames are the aggregation names the official clients decode; any
// other name in a result's fields[].agg.name makes them fail.
var apiNames = strings.Fields(`count countif distinct distinctif sum sumif avg avgif min minif max
	maxif topk topkif percentiles percentilesif histogram histogramif stdev stdevif variance
	varianceif argmin argmax rate makeset makesetif makelist makelistif computed spotlight`)

func TestRegistryNamesAndDocs(t *testing.T) {
	if len(All()) < 30 {
		t.Fatalf("only %d aggregations registered", len(All()))
	}
	for _, s := range All() {
		ok := false
		for _, a := range apiNames {
			ok = ok || a == s.APIName
		}
		if !ok {
			t.Errorf("%s: APIName %q is not one the clients accept", s.Name, s.APIName)
		}
		if s.Doc == "" || s.Result == nil || s.New == nil {
			t.Errorf("%s: incomplete spec", s.Name)
		}
		if Lookup(s.Name) != s {
			t.Errorf("Lookup(%q) does not return the spec", s.Name)
		}
	}
	if Lookup("no_such_agg") != nil {
		t.Error("Lookup of an unknown name returned a spec")
	}
}

// mergeCases gives every registered aggregation a call over the fixture.
func mergeCases(fx *fixture) map[string][]*vector.Vector {
	rows := len(fx.groups)
	c := func(t vector.Type, x any) *vector.Vector { return cnst(t, x, rows) }
	return map[string][]*vector.Vector{
		"count":   {},
		"countif": {fx.b},
		"sum":     {fx.f}, "sumif": {fx.i, fx.b},
		"avg": {fx.f}, "avgif": {fx.ts, fx.b},
		"min": {fx.s}, "max": {fx.f}, "minif": {fx.dt, fx.b}, "maxif": {fx.i, fx.b},
		"dcount": {fx.s}, "dcountif": {fx.i, fx.b},
		"stdev": {fx.f}, "stdevif": {fx.i, fx.b}, "variance": {fx.i}, "varianceif": {fx.f, fx.b},
		"percentile":          {fx.f, c(vector.Int, int64(90))},
		"percentileif":        {fx.ts, c(vector.Int, int64(50)), fx.b},
		"percentiles_array":   {fx.i, c(vector.Int, int64(5)), c(vector.Float, 50.0), c(vector.Int, int64(99))},
		"percentiles_arrayif": {fx.dt, c(vector.Dynamic, []any{int64(10), int64(90)}), fx.b},
		"arg_min":             {fx.f, fx.s, fx.i},
		"arg_max":             {fx.i, fx.f, fx.dt},
		"make_list":           {fx.i}, "make_list_if": {fx.s, fx.b},
		"make_set": {fx.s}, "make_set_if": {fx.i, fx.b, c(vector.Int, int64(5))},
		"make_bag":    {fx.bag},
		"topk":        {fx.s, c(vector.Int, int64(3))},
		"topkif":      {fx.i, c(vector.Int, int64(2)), fx.b},
		"histogram":   {fx.f, c(vector.Int, int64(4))},
		"histogramif": {fx.i, c(vector.Int, int64(3)), fx.b},
		"rate":        {fx.f},
		"phrases":     {fx.s, c(vector.Int, int64(3))},
		"spotlight":   {fx.b, fx.s, fx.i},
	}
}

// TestMergeEquivalence checks, for every registered aggregation, that
// aggregating in two states and merging them with a group remapping gives
// what one pass gives.
func TestMergeEquivalence(t *testing.T) {
	fx := newFixture(3000, 7)
	cases := mergeCases(fx)
	for _, s := range All() {
		args, ok := cases[s.Name]
		if !ok {
			t.Errorf("%s has no merge case", s.Name)
			continue
		}
		t.Run(s.Name, func(t *testing.T) { checkMerge(t, s.Name, fx.n, fx.groups, args...) })
	}
}

// TestSelectionMatchesCompacted checks Update with a selection against
// Update over the gathered rows, for every aggregation.
func TestSelectionMatchesCompacted(t *testing.T) {
	fx := newFixture(2000, 5)
	cases := mergeCases(fx)
	var sel []int32
	var groups []uint32
	for k := 0; k < len(fx.groups); k += 3 {
		sel = append(sel, int32(k))
		groups = append(groups, fx.groups[k])
	}
	for _, s := range All() {
		args, ok := cases[s.Name]
		if !ok {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			st := newState(t, s.Name, args)
			st.Grow(fx.n)
			st.Update(args, sel, groups)
			got := st.Result(fx.n)
			gathered := make([]*vector.Vector, len(args))
			for i, a := range args {
				gathered[i] = a.Gather(sel)
			}
			want := run(t, s.Name, fx.n, groups, gathered...)
			for c := range want {
				w, g := values(want[c]), values(got[c])
				for i := range w {
					if !testutil.CloseValue(g[i], w[i], 1e-9) {
						t.Errorf("column %d group %d: with sel %#v, compacted %#v", c, i, g[i], w[i])
					}
				}
			}
		})
	}
}

// TestWrongArgumentTypes checks that type errors are reported by Result
// and New rather than surfacing as panics in Update.
func TestWrongArgumentTypes(t *testing.T) {
	bad := map[string][]vector.Type{
		"sum":        {vector.String},
		"avg":        {vector.Bool},
		"min":        {vector.Bool},
		"stdev":      {vector.String},
		"percentile": {vector.String, vector.Int},
		"sumif":      {vector.Int, vector.String},
	}
	for name, types := range bad {
		s := Lookup(name)
		if _, err := s.Result(types); err == nil {
			t.Errorf("%s%v: Result accepted bad types", name, types)
		}
		consts := make([]any, len(types))
		if len(types) > 1 {
			consts[1] = int64(50)
		}
		if _, err := s.New(&Context{}, types, consts); err == nil {
			t.Errorf("%s%v: New accepted bad types", name, types)
		}
	}
}
