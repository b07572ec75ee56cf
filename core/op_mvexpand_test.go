package core

import (
	"errors"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

func TestMvExpand(t *testing.T) {
	cases := []struct {
		name, q, cols string
		rows          []string
	}{
		{"array elements", `datatable(a:long, b:dynamic)[1, dynamic([10, 20]), 2, dynamic(['x'])] | mv-expand b`,
			"a:integer, b:dynamic", []string{`[1,10]`, `[1,20]`, `[2,"x"]`}},
		{"null gives one row, empty gives none, scalar gives itself",
			`datatable(a:long, b:dynamic)[1, dynamic(null), 2, dynamic([]), 3, dynamic({}), 4, dynamic(7)] | mv-expand b`,
			"a:integer, b:dynamic", []string{`[1,null]`, `[4,7]`}},
		{"bag into single-property bags", `datatable(a:long, b:dynamic)[1, dynamic({"p2": "y", "p1": "x"})] | mv-expand b`,
			"a:integer, b:dynamic", []string{`[1,{"p1":"x"}]`, `[1,{"p2":"y"}]`}},
		{"kind=bag", `datatable(a:long, b:dynamic)[1, dynamic({"p1": "x"})] | mv-expand kind=bag b`,
			"a:integer, b:dynamic", []string{`[1,{"p1":"x"}]`}},
		{"kind=array turns properties into pairs", `datatable(a:long, b:dynamic)[1, dynamic({"p1": "x", "p2": 2})] | mv-expand kind=array b | extend k = tostring(b[0])`,
			"a:integer, b:dynamic, k:string", []string{`[1,["p1","x"],"p1"]`, `[1,["p2",2],"p2"]`}},
		{"zipped columns padded with null", `datatable(a:long, b:dynamic, c:dynamic)[1, dynamic({"p": 1}), dynamic([5, 4, 3])] | mv-expand b, c`,
			"a:integer, b:dynamic, c:dynamic", []string{`[1,{"p":1},5]`, `[1,null,4]`, `[1,null,3]`}},
		{"one after the other is a product", `datatable(b:dynamic, c:dynamic)[dynamic([1, 2]), dynamic(['x', 'y'])] | mv-expand b | mv-expand c`,
			"b:dynamic, c:dynamic", []string{`[1,"x"]`, `[1,"y"]`, `[2,"x"]`, `[2,"y"]`}},
		{"to typeof casts and nulls misfits", `datatable(b:dynamic)[dynamic([1, "2", 3.5, null])] | mv-expand b to typeof(long)`,
			"b:integer", []string{`[1]`, `[null]`, `[3]`, `[null]`}},
		{"to typeof(datetime) reads text", `datatable(b:dynamic)[dynamic(["2024-01-02T03:04:05Z", "nope"])] | mv-expand b to typeof(datetime)`,
			"b:datetime", []string{`["2024-01-02T03:04:05Z"]`, `[null]`}},
		{"with_itemindex", `datatable(x:dynamic)[dynamic([7, 8, 9])] | mv-expand with_itemindex=Index x`,
			"x:dynamic, Index:integer", []string{`[7,0]`, `[8,1]`, `[9,2]`}},
		{"limit per row", `datatable(a:long, x:dynamic)[1, dynamic([1, 2, 3]), 2, dynamic([4])] | mv-expand x limit 2`,
			"a:integer, x:dynamic", []string{`[1,1]`, `[1,2]`, `[2,4]`}},
		{"alias adds a column", `datatable(p:dynamic)[dynamic({"ips": ["a", "b"]})] | mv-expand ip = p.ips | project ip`,
			"ip:dynamic", []string{`["a"]`, `["b"]`}},
		{"path without alias", `datatable(p:dynamic)[dynamic({"ips": ["a"]})] | mv-expand p.ips | project p_ips`,
			"p_ips:dynamic", []string{`["a"]`}},
		{"plain field passes through", `datatable(uri:string)['/a', '/b', '/a'] | mv-expand uri | summarize n = count() by uri | order by uri asc`,
			"uri:string, n:integer", []string{`["/a",2]`, `["/b",1]`}},
		{"nothing left", `datatable(x:dynamic)[dynamic([])] | mv-expand x | count`,
			"count:integer", []string{`[0]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { opsExpect(t, c.q, c.cols, c.rows...) })
	}
}

func TestMvExpandErrors(t *testing.T) {
	opsExpectError(t, `datatable(x:dynamic)[dynamic([1])] | mv-expand x limit x`, 1, 56, "limit must be a constant long")
	opsExpectError(t, `datatable(x:dynamic)[dynamic([1])] | mv-expand nope`, 1, 48, `unknown field or variable "nope"`)
}

// An expansion is handed on a piece at a time, so a query's memory
// follows what it keeps, not what it expands: a constant range() of a
// hundred thousand values on each of 20 rows counts within a 16 MB budget
// (before, the whole expansion of a batch was built first and the query
// failed), while the same rows kept by a take, a top or a distinct fail with
// ErrMemoryExceeded instead of taking the server down (before the budget,
// they did). A failed query leaves nothing charged, so later ones run.
func TestMvExpandMemoryBudget(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	rows := `datatable(a:long)[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]`
	small := func(r *exec.Request) { r.MemoryBudget = 16 << 20 }
	q := rows + ` | extend r = range(1, 100000) | mv-expand r | extend w = strcat("x-", tostring(r)) | count`
	res, err := query(t, e, q, small)
	if err != nil {
		t.Fatalf("2,000,000 expanded rows counted under a 16 MB budget: %v", err)
	}
	if got := res.Table.Columns[0].Vec.Value(0); got != int64(2000000) {
		t.Fatalf("count = %v, want 2000000", got)
	}
	for _, keep := range []string{` | take 2000000`, ` | distinct a, r`, ` | order by r desc | take 1500000`} {
		q := rows + ` | extend r = range(1, 100000) | mv-expand r` + keep
		if _, err := query(t, e, q, small); !errors.Is(err, exec.ErrMemoryExceeded) {
			t.Fatalf("%s: 2,000,000 rows kept under a 16 MB budget: want ErrMemoryExceeded, got %v", keep, err)
		}
	}
	q = `logs | extend r = range(1, 20) | mv-expand r | count`
	if _, err := query(t, e, q, small); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
