package core

import "testing"

func TestProjectFamily(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | project k, w = v * 10 | take 2", cols: []string{"k", "w"}, rows: [][]any{{"a", int64(10)}, {"b", int64(20)}}},
		{q: "T | project v + 1 | take 1", cols: []string{"Column1"}, rows: [][]any{{int64(2)}}},
		{q: "T | project k, k", err: "projected twice"},
		{q: "T | project nope", err: `unknown field or variable "nope"`},
		{q: "T | project-away r, t | take 1", cols: []string{"k", "v"}, rows: [][]any{{"a", int64(1)}}},
		{q: "T | project-away nope", err: "unknown field"},
		{q: "T | project-keep k, t | getschema | project ColumnName", rows: [][]any{{"k"}, {"t"}}},
		{q: "T | project-rename key = k | project key | take 1", rows: [][]any{{"a"}}},
		{q: "T | project-rename v = k", err: "already exists"},
		{q: "T | project-reorder t, r | getschema | project ColumnName", rows: [][]any{{"t"}, {"r"}, {"k"}, {"v"}}},
		{q: "T | project-reorder * desc | getschema | project ColumnName", rows: [][]any{{"v"}, {"t"}, {"r"}, {"k"}}},
	})
}
