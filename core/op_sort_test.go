package core

import "testing"

func TestSortTopTake(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | sort by v | project v", rows: [][]any{{int64(3)}, {int64(2)}, {int64(1)}, {nil}}},
		{q: "T | sort by v asc | project v", rows: [][]any{{nil}, {int64(1)}, {int64(2)}, {int64(3)}}},
		{q: "T | sort by v asc nulls last | project v", rows: [][]any{{int64(1)}, {int64(2)}, {int64(3)}, {nil}}},
		{q: "T | order by k asc, v desc | project k, v", rows: [][]any{{"a", int64(3)}, {"a", int64(1)}, {"b", int64(2)}, {"c", nil}}},
		{q: "T | top 2 by r | project r", rows: [][]any{{2.5}, {1.5}}},
		{q: "T | top 1 by t asc | project k", rows: [][]any{{"a"}}},
		{q: "T | take 2 | count", rows: [][]any{{int64(2)}}},
		{q: "T | limit 0 | count", rows: [][]any{{int64(0)}}},
		{q: "T | take -1", err: "non-negative"},
		{q: "T | top v by r", err: "unknown field"},
	})
}
