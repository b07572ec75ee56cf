package core

import "testing"

func TestSummarize(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | summarize count(), sum(v), avg(r) by k | sort by k asc", cols: []string{"k", "count_", "sum_v", "avg_r"},
			rows: [][]any{{"a", int64(2), int64(4), 1.0}, {"b", int64(1), int64(2), nil}, {"c", int64(1), nil, 2.5}}},
		{q: "T | summarize n = count()", rows: [][]any{{int64(4)}}},
		{q: "T | where v > 100 | summarize count(), max(v)", rows: [][]any{{int64(0), nil}}},
		{q: "T | summarize count() by bin(t, 2m)", cols: []string{"t", "count_"},
			rows: [][]any{{"2024-01-01T00:00:00Z", int64(2)}, {"2024-01-01T00:02:00Z", int64(2)}}},
		{q: "T | summarize count() by isnull(v) | sort by v asc", rows: [][]any{{false, int64(3)}, {true, int64(1)}}},
		{q: "T | summarize share = 100 * countif(v > 1) / count()", rows: [][]any{{int64(50)}}},
		{q: "T | summarize v by k", err: "aggregation"},
		{q: "T | summarize nosuch(v)", err: "unknown aggregation"},
		{q: "T | summarize percentile(v, r)", err: "must be a constant"},
	})
}

// TestSummarizeArgMaxNullKey is Kusto's null handling example for
// arg_max/arg_min: Banana's Version is always null, so one of its rows is
// returned with a null Version; its Color was null.
func TestSummarizeArgMaxNullKey(t *testing.T) {
	const fruit = `datatable(Fruit:string, Color:string, Version:long)["Apple","Red",1, "Apple","Green",long(null),
		"Banana","Yellow",long(null), "Banana","Green",long(null), "Pear","Brown",1, "Pear","Green",2]`
	opsExpect(t, fruit+" | summarize arg_max(Version, *) by Fruit | sort by Fruit asc",
		"Fruit:string, Version:integer, Color:string",
		`["Apple",1,"Red"]`, `["Banana",null,"Yellow"]`, `["Pear",2,"Green"]`)
	opsExpect(t, fruit+" | summarize arg_min(Version, Color) by Fruit | sort by Fruit asc",
		"Fruit:string, Version:integer, Color:string",
		`["Apple",1,"Red"]`, `["Banana",null,"Yellow"]`, `["Pear",1,"Brown"]`)
}

// TestSummarizeMakeSetArrays is Kusto's make_set example over an array
// column: the elements are combined, not the arrays kept whole.
func TestSummarizeMakeSetArrays(t *testing.T) {
	const q = `datatable(Val:int, Arr1:dynamic)[1, dynamic(['A1','A2','A3']), 5, dynamic(['A2','C1']),
		7, dynamic(['C2','A3']), 5, dynamic(['C2','A1'])]`
	opsExpect(t, q+" | summarize Val_set = make_set(Val), Arr1_set = make_set(Arr1), Arr1_list = make_list(Arr1)",
		"Val_set:dynamic, Arr1_set:dynamic, Arr1_list:dynamic",
		`[[1,5,7],["A1","A2","A3","C1","C2"],["A1","A2","A3","A2","C1","C2","A3","C2","A1"]]`)
}
