package agg

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

func TestMakeBag(t *testing.T) {
	bags := col(vector.Dynamic,
		map[string]any{"a": int64(1), "b": "x"},
		nil,
		"not a bag",
		map[string]any{"b": "later", "c": true},
		map[string]any{"z": 1.5},
	)
	res := run(t, "make_bag", 3, []uint32{0, 0, 0, 0, 1}, bags)
	expect(t, "bags", res[0],
		map[string]any{"a": int64(1), "b": "x", "c": true},
		map[string]any{"z": 1.5},
		map[string]any{})

	res = run(t, "make_bag", 1, []uint32{0, 0}, bags.Gather([]int32{0, 3}), cnst(vector.Int, int64(2), 2))
	if got := values(res[0])[0].(map[string]any); len(got) != 2 {
		t.Errorf("max 2 keys: got %v", got)
	}
	if _, err := Lookup("make_bag").Result([]vector.Type{vector.String}); err == nil {
		t.Error("make_bag accepted a string")
	}
}

func TestMakeBagMerge(t *testing.T) {
	fx := newFixture(300, 4)
	checkMerge(t, "make_bag", fx.n, fx.groups, fx.bag)
}
