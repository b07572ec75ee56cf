package agg

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

func phrase(p string, c int64) map[string]any { return map[string]any{"phrase": p, "count": c} }

func TestPhrases(t *testing.T) {
	text := col(vector.String,
		"Use title case. Cover related future queries!",
		"first query: use title case",
		nil,
		"Cover related future queries, first query.",
	)
	res := run(t, "phrases", 1, make([]uint32, 4), text, cnst(vector.Int, int64(3), 4))
	expect(t, "phrases", res[0], []any{
		phrase("cover related", 2), phrase("cover related future", 2), phrase("cover related future queries", 2),
	})

	// Default of 10, one-word segments, empty group.
	res = run(t, "phrases", 2, []uint32{0, 0}, col(vector.String, "/api/users", "/api/items"))
	expect(t, "uris", res[0], []any{phrase("api", 2), phrase("items", 1), phrase("users", 1)}, []any{})

	if _, err := Lookup("phrases").Result([]vector.Type{vector.Int}); err == nil {
		t.Error("phrases accepted a long")
	}
}

func TestPhrasesMerge(t *testing.T) {
	fx := newFixture(300, 3)
	checkMerge(t, "phrases", fx.n, fx.groups, fx.s, cnst(vector.Int, int64(4), 300))
}
