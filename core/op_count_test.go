package core

import "testing"

func TestCountDistinctGetschema(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | count", cols: []string{"count"}, rows: [][]any{{int64(4)}}},
		{q: "T | where k == 'z' | count", rows: [][]any{{int64(0)}}},
		{q: "T | distinct k | sort by k asc", rows: [][]any{{"a"}, {"b"}, {"c"}}},
		{q: "T | distinct k, v > 1 | sort by k asc, Column1 asc", rows: [][]any{{"a", false}, {"a", true}, {"b", true}, {"c", nil}}},
		{q: "T | distinct * | count", rows: [][]any{{int64(4)}}},
		{q: "T | getschema", cols: []string{"ColumnName", "ColumnOrdinal", "DataType", "ColumnType"},
			rows: [][]any{{"k", int64(0), "System.String", "string"}, {"v", int64(1), "System.Int64", "long"},
				{"r", int64(2), "System.Double", "real"}, {"t", int64(3), "System.DateTime", "datetime"}}},
	})
}
