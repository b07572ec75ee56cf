package core

import "testing"

func TestExtend(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | extend d = v * 2, e = d + 1 | project d, e | take 1", rows: [][]any{{int64(2), int64(3)}}},
		{q: "T | extend v = tostring(v) | project v | take 1", rows: [][]any{{"1"}}},
		{q: "T | extend n = v + r | project n", rows: [][]any{{2.5}, {nil}, {3.5}, {nil}}},
		{q: "T | extend x = nofn(v)", err: `unknown function "nofn"`},
		{q: "T | extend-valid r = 0.0, v = 7 | project r, v | take 1", rows: [][]any{{1.5, int64(7)}}},
	})
}
