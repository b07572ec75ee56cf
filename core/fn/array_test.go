package fn

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

func TestArrayFunctions(t *testing.T) {
	bRunCases(t, []bCase{
		// array_length / len / isarray
		{"array_length", []any{bJ(`[1,2,3]`)}, int64(3)},
		{"array_length", []any{bJ(`[]`)}, int64(0)},
		{"array_length", []any{bJ(`[[1,2],[3]]`)}, int64(2)},
		{"array_length", []any{bJ(`{"a":1}`)}, nil},
		{"array_length", []any{nullDyn}, nil},
		{"len", []any{"/api/products/search"}, int64(20)},
		{"len", []any{"héllo✓"}, int64(6)},
		{"len", []any{bJ(`["a","b"]`)}, int64(2)},
		{"len", []any{"héllo"}, int64(5)},
		{"len", []any{nullStr}, nil},
		{"len", []any{bJ(`{"a":1}`)}, nil},
		{"isarray", []any{bJ(`[1]`)}, true},
		{"isarray", []any{bJ(`[]`)}, true},
		{"isarray", []any{bJ(`{"a":[1]}`)}, false},
		{"isarray", []any{"[1,2]"}, false},
		{"isarray", []any{nullDyn}, false},

		// pack_array / array_concat / array_reverse
		{"pack_array", []any{"/api/v1/textdata/cnfigs", "POST"}, bJ(`["/api/v1/textdata/cnfigs","POST"]`)},
		{"pack_array", []any{int64(1), nullStr, 2.5, true}, []any{int64(1), nil, 2.5, true}},
		{"pack_array", []any{bJ(`[1]`), bJ(`{"a":1}`)}, bJ(`[[1],{"a":1}]`)},
		{"array_concat", []any{bJ(`["span1"]`), bJ(`["trace1"]`)}, bJ(`["span1","trace1"]`)},
		{"array_concat", []any{bJ(`[1,2]`), bJ(`[]`), bJ(`[[3]]`)}, bJ(`[1,2,[3]]`)},
		{"array_concat", []any{bJ(`[1]`), nullDyn}, nil},
		{"array_concat", []any{bJ(`[1]`), bJ(`{"a":1}`)}, nil},
		{"array_reverse", []any{bJ(`["a","b","c"]`)}, bJ(`["c","b","a"]`)},
		{"array_reverse", []any{bJ(`[]`)}, bJ(`[]`)},
		{"array_reverse", []any{xCol(vector.Dynamic, int64(5))}, nil},

		// array_sum / strcat_array
		{"array_sum", []any{bJ(`[1,2,3.5]`)}, 6.5},
		{"array_sum", []any{bJ(`[1,"2",null,true,4]`)}, 5.0},
		{"array_sum", []any{bJ(`[]`)}, 0.0},
		{"array_sum", []any{nullDyn}, nil},
		{"strcat_array", []any{bJ(`["GET /index","POST /submit","GET /about"]`), ", "}, "GET /index, POST /submit, GET /about"},
		{"strcat_array", []any{bJ(`[1,2.5,null,"x",[1],{"k":"v"}]`), "-"}, `1-2.5--x-[1]-{"k":"v"}`},
		{"strcat_array", []any{bJ(`["a","b"]`)}, "ab"},
		{"strcat_array", []any{bJ(`[]`), ","}, ""},
		{"strcat_array", []any{bJ(`["a"]`), nullStr}, nil},

		// array_slice (Axiom: end exclusive) / array_split
		{"array_slice", []any{bJ(`["prepared","flag1","charged","shipped","flag2"]`), -3, -1}, bJ(`["charged","shipped"]`)},
		{"array_slice", []any{bJ(`[1,2,3,4]`), 1, 3}, bJ(`[2,3]`)},
		{"array_slice", []any{bJ(`[1,2,3,4]`), 2}, bJ(`[3,4]`)},
		{"array_slice", []any{bJ(`[1,2,3,4]`), -10, 10}, bJ(`[1,2,3,4]`)},
		{"array_slice", []any{bJ(`[1,2,3,4]`), 3, 1}, bJ(`[]`)},
		{"array_slice", []any{bJ(`[1,2]`), nullInt, 1}, nil},
		// A scalar is a split index (Axiom's page: three events split at 2
		// give the first two and the last), not a number of parts: [1..5]
		// split at 2 was [[1,2,3],[4,5]].
		{"array_split", []any{bJ(`["Enqueued","Sent","ResponseReceived"]`), 2}, bJ(`[["Enqueued","Sent"],["ResponseReceived"]]`)},
		{"array_split", []any{bJ(`["Enqueued","Sent","ResponseReceived"]`), bJ(`[1,2]`)}, bJ(`[["Enqueued"],["Sent"],["ResponseReceived"]]`)},
		{"array_split", []any{bJ(`[1,2,3,4,5]`), 2}, bJ(`[[1,2],[3,4,5]]`)},
		{"array_split", []any{bJ(`[1,2,3,4,5]`), -2}, bJ(`[[1,2,3],[4,5]]`)},
		{"array_split", []any{bJ(`[1,2]`), 5}, bJ(`[[1,2],[]]`)},
		{"array_split", []any{bJ(`[]`), 2}, bJ(`[[],[]]`)},
		{"array_split", []any{bJ(`[1,2,3]`), 0}, bJ(`[[],[1,2,3]]`)},
		{"array_split", []any{bJ(`[1,2,3]`), nullInt}, nil},
		{"array_split", []any{bJ(`[1,2,3,4,5]`), bJ(`[2,4]`)}, bJ(`[[1,2],[3,4],[5]]`)},
		{"array_split", []any{bJ(`[1,2,3,4,5]`), bJ(`[-1]`)}, bJ(`[[1,2,3,4],[5]]`)},

		// array_index_of
		{"array_index_of", []any{bJ(`["200","404","500"]`), "500"}, int64(2)},
		{"array_index_of", []any{bJ(`["frontend","cartservice"]`), "frontend"}, int64(0)},
		{"array_index_of", []any{bJ(`[1,2,3]`), 4}, int64(-1)},
		{"array_index_of", []any{bJ(`[1,2.0,3]`), 2}, int64(1)},
		{"array_index_of", []any{bJ(`["1",1]`), 1}, int64(1)},
		{"array_index_of", []any{bJ(`[1,2,1,2,1]`), 1, 1}, int64(2)},
		{"array_index_of", []any{bJ(`[1,2,1,2,1]`), 1, -2}, int64(4)},
		{"array_index_of", []any{bJ(`[1,2,1,2,1]`), 1, 0, -1, 3}, int64(4)},
		{"array_index_of", []any{bJ(`[1,2,1,2,1]`), 1, 1, 1}, int64(-1)},
		{"array_index_of", []any{bJ(`[]`), 1}, int64(-1)},
		{"array_index_of", []any{nullDyn, 1}, nil},
		{"array_index_of", []any{bJ(`[1]`), nullInt}, nil},

		// rotations and shifts
		{"array_rotate_left", []any{bJ(`[1,2,3,4,5]`), 2}, bJ(`[3,4,5,1,2]`)},
		{"array_rotate_left", []any{bJ(`[1,2,3,4,5]`), -1}, bJ(`[5,1,2,3,4]`)},
		{"array_rotate_left", []any{bJ(`[1,2,3]`), 7}, bJ(`[2,3,1]`)},
		{"array_rotate_right", []any{bJ(`[1,2,3,4,5]`), 2}, bJ(`[4,5,1,2,3]`)},
		{"array_rotate_right", []any{bJ(`[]`), 2}, bJ(`[]`)},
		{"array_shift_left", []any{bJ(`[{"name":"Enqueued"},{"name":"Sent"},{"name":"ResponseReceived"}]`), 1},
			bJ(`[{"name":"Sent"},{"name":"ResponseReceived"},null]`)},
		{"array_shift_left", []any{bJ(`[1,2,3,4,5]`), 2, -1}, bJ(`[3,4,5,-1,-1]`)},
		{"array_shift_left", []any{bJ(`[1,2,3]`), -1}, bJ(`[null,1,2]`)},
		{"array_shift_right", []any{bJ(`[1,2,3,4,5]`), 2}, bJ(`[null,null,1,2,3]`)},
		{"array_shift_right", []any{bJ(`[1,2,3]`), 10, 0}, bJ(`[0,0,0]`)},
		{"array_shift_right", []any{nullDyn, 1}, nil},

		// array_iff
		{"array_iff", []any{bJ(`[true,false,true]`), bJ(`[1,2,3]`), bJ(`[4,5,6]`)}, bJ(`[1,5,3]`)},
		{"array_iff", []any{bJ(`[true,false,true]`), bJ(`[0.31,0.5,0.21]`), 0}, bJ(`[0.31,0,0.21]`)},
		{"array_iff", []any{bJ(`[1,0,"x",null]`), "yes", "no"}, bJ(`["yes","no",null,null]`)},
		{"array_iff", []any{bJ(`[true,true]`), bJ(`[1]`), 0}, bJ(`[1,null]`)},
		{"array_iff", []any{bJ(`[]`), 1, 2}, bJ(`[]`)},

		// sorting
		{"array_sort_asc", []any{bJ(`["x","a","m","o","i"]`)}, bJ(`["a","i","m","o","x"]`)},
		{"array_sort_asc", []any{bJ(`[4,2,5]`)}, bJ(`[2,4,5]`)},
		{"array_sort_asc", []any{bJ(`[3,null,1.5,2]`)}, bJ(`[1.5,2,3,null]`)},
		{"array_sort_asc", []any{bJ(`[3,null,1]`), false}, bJ(`[null,1,3]`)},
		{"array_sort_asc", []any{bJ(`["b",2,true,"a",1]`)}, bJ(`[true,1,2,"a","b"]`)},
		{"array_sort_asc", []any{bJ(`{"a":1}`)}, bJ(`[]`)},
		{"array_sort_asc", []any{nullDyn}, nil},
		{"array_sort_desc", []any{bJ(`[4,2,5,null]`)}, bJ(`[5,4,2,null]`)},
		{"array_sort_desc", []any{bJ(`["é","e","z"]`)}, bJ(`["é","z","e"]`)},
		{"array_sort_desc", []any{bJ(`[1,null]`), false}, bJ(`[null,1]`)},

		// array_extract (JSONPath)
		{"array_extract", []any{bJ(`[{"id":1,"value":true},{"id":2,"value":false}]`), "$[*].value"}, bJ(`[true,false]`)},
		// Values keep their JSON types: booleans, integers, reals, strings,
		// bags and nulls are not turned into strings ("true", "200").
		{"array_extract", []any{bJ(`[{"s":200},{"s":"200"},{"s":1.5},{"s":false},{"s":{"k":[1]}},{"s":null}]`), "$[*].s"},
			[]any{int64(200), "200", 1.5, false, map[string]any{"k": []any{int64(1)}}, nil}},
		{"array_extract", []any{bJ(`[{"t":1734033733465219300}]`), "$[*].t"}, []any{int64(1734033733465219300)}},
		{"array_extract", []any{bJ(`{"a":{"b":[10,20,30]}}`), "$.a.b[-1]"}, bJ(`[30]`)},
		{"array_extract", []any{bJ(`{"a.b":1}`), "$['a.b']"}, bJ(`[1]`)},
		{"array_extract", []any{bJ(`[1,2]`), "$.missing"}, bJ(`[]`)},
		{"array_extract", []any{bJ(`[1,2]`), "$[?(@>1)]"}, nil},
		{"array_extract", []any{nullDyn, "$[0]"}, nil},

		// NaN, ±Inf and unicode
		{"array_sum", []any{[]any{1.0, math.Inf(1)}}, math.Inf(1)},
		{"array_sum", []any{[]any{math.NaN(), int64(1)}}, math.NaN()},
		{"array_sort_asc", []any{[]any{math.NaN(), int64(1), math.Inf(-1)}}, []any{math.Inf(-1), int64(1), math.NaN()}},
		{"array_sort_desc", []any{[]any{math.NaN(), int64(1), math.Inf(1)}}, []any{math.NaN(), math.Inf(1), int64(1)}},
		{"array_index_of", []any{[]any{1.0, math.Inf(1)}, math.Inf(1)}, int64(1)},
		{"strcat_array", []any{bJ(`["é","✓","日本"]`), "·"}, "é·✓·日本"},
		{"array_reverse", []any{bJ(`["é","✓"]`)}, bJ(`["✓","é"]`)},
		{"array_index_of", []any{bJ(`["ü","u"]`), "u"}, int64(1)},

		// array_select_dict
		{"array_select_dict", []any{bJ(`[{"name":"http.request","attributes":{"path":"/api"},"timestamp":1}]`), bJ(`["name","attributes"]`)},
			bJ(`[{"name":"http.request","attributes":{"path":"/api"}}]`)},
		{"array_select_dict", []any{bJ(`[{"a":1,"b":2},3,{"b":4}]`), "a"}, bJ(`[{"a":1},{}]`)},
		{"array_select_dict", []any{bJ(`[]`), bJ(`["a"]`)}, bJ(`[]`)},
		// The (array, key, value) form: the first dictionary that matches.
		{"array_select_dict", []any{bJ(`[{"s":"frontend","c":"200"},{"s":"backend","c":"500"},{"s":"backend"}]`), "s", "backend"}, bJ(`{"s":"backend","c":"500"}`)},
		{"array_select_dict", []any{bJ(`[3,{"a":1.0},{"a":2}]`), "a", int64(1)}, bJ(`{"a":1.0}`)},
		{"array_select_dict", []any{bJ(`[{"a":"1"}]`), "a", int64(1)}, nil},
		{"array_select_dict", []any{bJ(`[{"a":1}]`), "b", int64(1)}, nil},
		{"array_select_dict", []any{nullDyn, "a", int64(1)}, nil},
		{"array_select_dict", []any{nullDyn, bJ(`["a"]`)}, nil},
	})
}

func TestBagFunctions(t *testing.T) {
	bRunCases(t, []bCase{
		{"bag_pack", []any{"uri", "/api/data", "method", "GET", "duration_ms", int64(342)},
			bJ(`{"uri":"/api/data","method":"GET","duration_ms":342}`)},
		{"pack", []any{"source", "cdn", "env", "prod"}, bJ(`{"source":"cdn","env":"prod"}`)},
		{"pack_dictionary", []any{"a", nullStr, "b", bJ(`[1]`)}, map[string]any{"a": nil, "b": []any{int64(1)}}},
		{"bag_pack", []any{nullStr, 1, "k", 2}, bJ(`{"k":2}`)},
		{"bag_pack", []any{}, bJ(`{}`)},
		{"bag_zip", []any{bJ(`["status","method","city"]`), bJ(`["200","GET","Seattle"]`)}, bJ(`{"status":"200","method":"GET","city":"Seattle"}`)},
		{"bag_zip", []any{bJ(`["a","b","c"]`), bJ(`[1,2]`)}, bJ(`{"a":1,"b":2}`)},
		// Keys that are not strings are converted (Kusto), not dropped.
		// Kusto's page: keys that are not strings are ignored, with
		// their values (its example: ['a', 8, 'b'] gives a and b).
		{"bag_zip", []any{bJ(`["a",5,"c"]`), bJ(`[1,2,3]`)}, bJ(`{"a":1,"c":3}`)},
		{"bag_zip", []any{bJ(`["a",8,"b"]`), bJ(`[1,"2",3.4]`)}, bJ(`{"a":1,"b":3.4}`)},
		{"bag_zip", []any{bJ(`[1.5,true,null,{"k":1},[2]]`), bJ(`[1,2,3,4,5]`)}, bJ(`{}`)},
		{"bag_zip", []any{bJ(`[]`), bJ(`[]`)}, bJ(`{}`)},
		{"bag_zip", []any{nullDyn, bJ(`[1]`)}, nil},
		{"bag_merge", []any{bJ(`{"a":1,"b":1}`), bJ(`{"b":2}`), bJ(`{"c":{"d":3}}`)}, bJ(`{"a":1,"b":2,"c":{"d":3}}`)},
		{"bag_merge", []any{bJ(`{"a":1}`), nullDyn, bJ(`[1]`)}, bJ(`{"a":1}`)},
		{"bag_merge", []any{nullDyn}, nil},
		{"bag_keys", []any{bJ(`{"b":1,"a":{"c":2}}`)}, bJ(`["a","b"]`)},
		{"bag_keys", []any{bJ(`{}`)}, bJ(`[]`)},
		{"bag_keys", []any{bJ(`[1]`)}, nil},
		{"bag_has_key", []any{bJ(`{"source":"cdn","env":"prod"}`), "env"}, true},
		{"bag_has_key", []any{bJ(`{"source":"cdn"}`), "env"}, false},
		{"bag_has_key", []any{bJ(`{"a":null}`), "a"}, true},
		{"bag_has_key", []any{bJ(`{"a":{"b":1}}`), "$.a.b"}, true},
		{"bag_has_key", []any{bJ(`{"a":{"b":1}}`), "$.a.c"}, false},
		{"bag_has_key", []any{bJ(`[1]`), "a"}, false},
		{"bag_has_key", []any{nullDyn, "a"}, nil},
	})
}

func TestArrayTypeErrors(t *testing.T) {
	bResultErr(t, "array_length", "argument 1 of array_length must be dynamic, got string", vector.String)
	bResultErr(t, "array_slice", "argument 2 of array_slice must be long, got string", vector.Dynamic, vector.String, vector.Int)
	bResultErr(t, "len", "argument 1 of len must be string or dynamic, got long", vector.Int)
	bResultErr(t, "bag_pack", "pairs", vector.String, vector.Int, vector.String)
	bResultErr(t, "array_sort_asc", "argument 2 of array_sort_asc must be bool", vector.Dynamic, vector.String)
}

// TestArrayColumns runs kernels over multi-row columns with nulls and
// constants, the shapes the executor passes.
func TestArrayColumns(t *testing.T) {
	col := xCol(vector.Dynamic, []any{int64(1)}, nil, "str", []any{}, []any{1.5, nil, "x"})
	got := bCall(t, "array_length", 5, col)
	want := []any{int64(1), nil, nil, int64(0), int64(3)}
	for i := range want {
		if !testutil.CloseValue(got[i], want[i], 1e-9) {
			t.Errorf("array_length row %d = %v, want %v", i, got[i], want[i])
		}
	}
	c := bCall(t, "array_length", 3, xConst(vector.Dynamic, []any{1, 2}, 3))
	if c[2] != int64(2) {
		t.Errorf("const array_length = %v", c)
	}
	// A constant array and a column of positions.
	pos := xCol(vector.Int, int64(0), int64(-1), nil)
	got = bCall(t, "array_slice", 3, xConst(vector.Dynamic, bJ(`[1,2,3]`), 3), pos)
	if !testutil.CloseValue(got, []any{bJ(`[1,2,3]`), bJ(`[3]`), nil}, 1e-9) {
		t.Errorf("array_slice over a column = %s", bShow(got))
	}
	// Times and durations keep their types inside packed arrays.
	ts := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	got = bCall(t, "pack_array", 1, xCol(vector.DateTime, ts), xCol(vector.TimeSpan, time.Second), xCol(vector.Float, math.Inf(1)))
	if arr := got[0].([]any); !arr[0].(time.Time).Equal(ts) || arr[1] != time.Second || !math.IsInf(arr[2].(float64), 1) {
		t.Errorf("pack_array = %v", arr)
	}
	// Results never alias the input array.
	in := bJ(`[3,1,2]`)
	bCall(t, "array_sort_asc", 1, xCol(vector.Dynamic, in))
	bCall(t, "array_reverse", 1, xCol(vector.Dynamic, in))
	if !testutil.CloseValue(in, bJ(`[3,1,2]`), 1e-9) {
		t.Errorf("input modified: %v", in)
	}
}

func BenchmarkArrayLength(b *testing.B) {
	const n = vector.BatchSize
	col := vector.New(vector.Dynamic, n)
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			col.AppendNull()
			continue
		}
		col.AppendDyn(make([]any, i%7))
	}
	f := Lookup("array_length")
	args := []*vector.Vector{col}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Eval(&Context{}, args, Dense(n)); err != nil {
			b.Fatal(err)
		}
	}
}
