package core

import (
	"context"
	"slices"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

const sliceEvents = `let Traces = datatable(EventText:string)[
 "Event: NotifySliceRelease (resourceName=PipelineScheduler, totalSlices=27, sliceNumber=23, lockTime=2016-02-17 08:40:01, releaseTime=2016-02-17 08:40:01, previousLockTime=2016-02-17 08:39:01)",
 "Event: NotifySliceRelease (resourceName=PipelineScheduler, totalSlices=nonValidLong, sliceNumber=15, lockTime=2016-02-17 08:40:00, releaseTime=nonValidDateTime, previousLockTime=2016-02-17 08:39:00)",
 "no event here"];
`

func TestParse(t *testing.T) {
	cases := []struct {
		name, q, cols string
		rows          []string
	}{
		{"simple, typed, with wildcards", sliceEvents + `Traces | parse EventText with * "resourceName=" resourceName ", totalSlices=" totalSlices:long * "sliceNumber=" sliceNumber:long * "releaseTime=" releaseTime:datetime "," * | project-away EventText`,
			"resourceName:string, totalSlices:integer, sliceNumber:integer, releaseTime:datetime",
			[]string{`["PipelineScheduler",27,23,"2016-02-17T08:40:01Z"]`, `[null,null,null,null]`, `[null,null,null,null]`}},
		{"relaxed nulls only the bad columns", sliceEvents + `Traces | parse kind=relaxed EventText with * "resourceName=" resourceName ", totalSlices=" totalSlices:long ", sliceNumber=" sliceNumber:long * "releaseTime=" releaseTime:datetime "," * | project-away EventText`,
			"resourceName:string, totalSlices:integer, sliceNumber:integer, releaseTime:datetime",
			[]string{`["PipelineScheduler",27,23,"2016-02-17T08:40:01Z"]`, `["PipelineScheduler",null,15,null]`, `[null,null,null,null]`}},
		{"parse-where drops what does not match", sliceEvents + `Traces | parse-where EventText with * "sliceNumber=" sliceNumber:long "," * | project sliceNumber`,
			"sliceNumber:integer", []string{`[23]`, `[15]`}},
		{"regex is greedy by default", sliceEvents + `Traces | parse kind=regex EventText with * "resourceName=" resourceName ',' * | project resourceName | take 1`,
			"resourceName:string", []string{`["PipelineScheduler, totalSlices=27, sliceNumber=23, lockTime=2016-02-17 08:40:01, releaseTime=2016-02-17 08:40:01"]`}},
		{"regex flags U and i", sliceEvents + `Traces | parse kind=regex flags=Ui EventText with * "RESOURCENAME=" resourceName ',' * | project resourceName`,
			"resourceName:string", []string{`["PipelineScheduler"]`, `["PipelineScheduler"]`, `[null]`}},
		{"regex with groups of its own", sliceEvents + `Traces | parse kind=regex flags=U EventText with "(.*?)[a-zA-Z]*=" name @", totalSlices=(\d+|\w+), sliceNumber=" n:long "," | project name, n`,
			"name:string, n:integer", []string{`["PipelineScheduler",23]`, `["PipelineScheduler",15]`, `[null,null]`}},
		{"pattern may start with a capture", `datatable(id:string)['usa-acme-3iou24', 'nodash'] | parse id with region '-' tenant '-' user | project region, tenant, user`,
			"region:string, tenant:string, user:string", []string{`["usa","acme","3iou24"]`, `[null,null,null]`}},
		{"anchored at the start", `datatable(uri:string)['/api/v1/ping/x', '/v2/api/v1/y'] | parse uri with '/api/v1/' endpoint | project endpoint`,
			"endpoint:string", []string{`["ping/x"]`, `[null]`}},
		{"captures replace fields and non-strings are read as text", `datatable(status:long, n:long)[200, 1234] | parse n with status:long '3' rest | project status, rest`,
			"status:integer, rest:string", []string{`[12,"4"]`}},
		{"null input gives nulls", `datatable(s:string)[''] | extend s = iff(true, s, s) | parse s with a '=' b | project a, b`,
			"a:string, b:string", []string{`[null,null]`}},
		{"unicode text", `datatable(s:string)['名前=値'] | parse s with k '=' v | project k, v`,
			"k:string, v:string", []string{`["名前","値"]`}},
		{"real, bool and timespan captures", `datatable(s:string)['x=1.5 ok=TRUE t=90s'] | parse s with 'x=' x:real ' ok=' ok:bool ' t=' d:timespan | project x, ok, d`,
			"x:float, ok:boolean, d:timespan", []string{`[1.5,true,"1m30s"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { opsExpect(t, c.q, c.cols, c.rows...) })
	}
}

func TestParseErrors(t *testing.T) {
	opsExpectError(t, `datatable(s:string)[''] | parse kind=regex flags=x s with a ',' b`, 1, 27, "unknown parse regex flag")
	opsExpectError(t, `datatable(s:string)[''] | parse flags=U s with a ',' b`, 0, 0, "")
	opsExpectError(t, `datatable(s:string)[''] | parse kind=regex s with "(" a`, 1, 51, "not a valid regular expression")
	opsExpectError(t, `datatable(s:string)[''] | parse s with * 'x' *`, 1, 27, "no capture")
	opsExpectError(t, `datatable(s:string)[''] | parse s with a ',' a`, 1, 46, `captures "a" twice`)
	opsExpectError(t, `datatable(s:string)[''] | parse nope with a ',' b`, 1, 33, `unknown field or variable "nope"`)
}

// TestParseDictionary checks that a dictionary-encoded column, parsed once
// per distinct value, gives what the plain column gives, selection and
// nulls included.
func TestParseDictionary(t *testing.T) {
	for _, q := range []string{
		`T | parse s with k '=' v:long`,
		`T | parse-where kind=relaxed s with k '=' v:long`,
		`T | parse kind=regex s with k '=' v`,
	} {
		plain := vector.New(vector.String, 6)
		for _, s := range []string{"a=1", "b=x", "", "a=1", "zz", "c=3"} {
			plain.AppendStr(s)
		}
		plain.AppendNull()
		dict := &vector.Vector{Type: vector.String, Len: 7, Dict: []string{"a=1", "b=x", "", "zz", "c=3"},
			Codes: []uint32{0, 1, 2, 0, 3, 4, 0}, Valid: plain.Valid}
		sel := []int32{0, 1, 3, 4, 5, 6}
		a := runParseStage(t, q, plain, sel)
		b := runParseStage(t, q, dict, sel)
		if !slices.Equal(a, b) {
			t.Errorf("%s:\nplain %v\n dict %v", q, a, b)
		}
		if len(a) == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
}

// runParseStage plans q's parse over a one-column input and applies it to
// a batch of v with selection sel, returning the live rows.
func runParseStage(t *testing.T, q string, v *vector.Vector, sel []int32) []string {
	t.Helper()
	pq, err := parser.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	x := &exec.Ctx{Ctx: context.Background(), Budget: exec.NewMemBudget(0)}
	x.Fn = testFnContext()
	p := &planner{e: NewEngine(nil), req: &exec.Request{}, fc: x.Fn, lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}}
	in := exec.Schema{{Name: "s", Type: vector.String}}
	st, err := p.planParse(in, pq.Body.Ops[0].(*parser.ParseOp))
	if err != nil {
		t.Fatal(err)
	}
	built, err := exec.BuildStage(&st.nodes[0], in, agg.Context{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := built.(*exec.ParseStage).Apply(x, &exec.Batch{Batch: vector.Batch{Cols: []*vector.Vector{v}, N: v.Len, Sel: append([]int32(nil), sel...)}})
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return nil
	}
	var out []string
	for _, r := range b.LiveRows() {
		row := ""
		for c := range b.Cols {
			col, _ := b.Col(c)
			row += exec.ValueString(col.Value(int(r))) + "|"
			if col.IsNull(int(r)) {
				row += "null|"
			}
		}
		out = append(out, row)
	}
	return out
}
