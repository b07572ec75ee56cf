package core

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// pipelineQueries exercise the source and stage kinds that only whole
// pipelines carry (tables, nested pipelines, unions, search, sample,
// getschema) beside the golden corpus.
var pipelineQueries = []string{
	"datatable(a:long, b:string, c:dynamic, d:real, e:datetime)[1, 'x', dynamic({'k': [1, 2]}), real(nan), datetime(2024-01-01), long(null), '', dynamic(null), -0.0, datetime(null)] | extend f = a + 1",
	"print x = 1, y = 'two', z = dynamic([1, 'a']), w = 1.5s",
	"print 9223372036854775807, -9223372036854775808, 0.1",
	"let t = logs | where status == 200 | project uri; t | take 3 | count",
	"let t = datatable(k:string)['GET', 'PUT']; t | join (logs | take 50) on $left.k == $right.method | summarize count() by k",
	"(logs | summarize c = count() by method) | sort by method asc",
	"union (logs | where method == 'GET' | take 2), (datatable(method:string, n:long)['X', 1]) | project method, n",
	"union withsource=src logs, (print method = 'P') | summarize count() by src, method",
	"logs | summarize count() by method | union (print method = 'Z', count_ = 7) | sort by method asc",
	"search 'commit' | count",
	"search in (logs) method == 'GET' and 'api' | take 3 | project uri",
	"logs | sample 0.5 | count",
	"logs | where status == 200 | getschema",
	"datatable(a:long)[1, 2] | getschema",
	"logs | join kind=inner (logs | summarize n = count() by method) on method | summarize sum(n) by method",
	"logs | take 20 | join kind=leftouter (datatable(method:string, v:long)['GET', 1]) on method | summarize count() by v",
	"datatable(m:string)['GET', 'X'] | join kind=rightouter (logs | distinct method) on $left.m == $right.method | sort by method asc",
	"datatable(method:string, k:long)['GET', 1, 'X', 2] | join kind=fullouter (logs | summarize c = count() by method) on method | sort by k asc, method1 asc",
	"datatable(method:string)['GET', 'X'] | join kind=leftanti (logs) on method",
	"datatable(method:string)['GET', 'X'] | join kind=rightsemi (logs | take 5) on method | count",
	"logs | join kind=innerunique (datatable(s:long, label:string)[200, 'ok', 404, 'nf']) on $left.status == $right.s | summarize count() by label",
	"logs | lookup (datatable(method:string, verb:string)['GET', 'read']) on method | summarize count() by verb",
	"logs | make-series count() default = -1, avg(req_duration_ms) on _time from datetime(2024-03-26) to datetime(2024-03-27) step 2h by method",
	"logs | make-series m = max(resp_body_size_bytes) on _time step 6h",
	"logs | make-series sum(req_duration_ms) on resp_body_size_bytes from 0 to 10000 step 1000",
	"logs | make-series dcount(uri) on req_duration_ms from 0.0 to 3.5 step 0.5 by is_tls",
	"logs | redact '[0-9]+' on uri | redact replaceToken='#' replaceHash=true redactGroups=true 'v([0-9])' | distinct uri | sort by uri asc | take 5",
	"logs | redact dynamic(['a', 'e']) | project message | take 3",
	"print t = 'a=1, b=\"x y\", c=2.5' | parse-kv t as (a:long, b:string, c:real) with (pair_delimiter=',', kv_delimiter='=', quote='\"')",
	"print t = 'k1: v1; k2: (v 2)' | parse-kv t as (k1, k2, t) with (pair_delimiter=';', kv_delimiter=':', quote='()', escape='\\\\', greedy=true)",
	"print t = 'a->1 b->2' | parse-kv t as (a:long, b:long) with (regex='([a-z]+)->([0-9]+)')",
	"logs | parse-kv uri as (api, v1:string) | summarize count() by api",
	"logs | lookup kind=inner (logs | summarize t = max(_time) by uri | where t > ago(3650d)) on uri | count",
}

// TestPipelinePlanRoundTrip is the whole-pipeline form of
// TestPlanRoundTrip: every query of the golden corpus (and
// pipelineQueries) is planned to nodes, encoded, decoded, built from
// the decoded nodes alone and run, and must answer what the engine
// answers; the built pipeline must plan back to the planner's bytes, so
// no stage the planner returned was anything but its node. (TestGolden
// checks the engine's answers against the ones of the planner that
// built its operators itself.)
func TestPipelinePlanRoundTrip(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 3, true)))
	qs := append(append([]string(nil), pipelineQueries...), planQueries...)
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.apl"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, string(src))
	}
	planned, errs := 0, 0
	for i, q := range qs {
		gap, err := pipelineRoundTrip(e, q)
		switch {
		case err != nil:
			t.Errorf("%s: %v", q, err)
		case (strings.HasPrefix(gap, "refused: ") || strings.HasPrefix(gap, "failed: ")) && i >= len(pipelineQueries):
			errs++ // the error corpus
			t.Logf("%s: %s", q, gap)
		case gap != "":
			t.Errorf("%s: has no plan form (%s)", q, gap)
		default:
			planned++
		}
	}
	t.Logf("%d of %d queries planned to a pipeline and round-tripped, %d are refused or fail", planned, len(qs), errs)
}

// pipelineRoundTrip plans q; gap says that it has no plan form, that
// the planner refused q, or that its run failed (the error corpus); err
// is a failed round trip or an answer that differs from the engine's.
func pipelineRoundTrip(e *Engine, q string) (gap string, err error) {
	ctx := context.Background()
	req := &exec.Request{APL: q, Now: fixtureNow, DisableCache: true}
	want, err := e.Query(ctx, req)
	if err != nil {
		return "failed: " + err.Error(), nil
	}
	p, pp, x, err := e.planReq(ctx, req, nil, fixtureNow)
	if err != nil {
		return "refused: " + err.Error(), nil
	}
	defer p.release()
	js, err := pp.Encode()
	if err != nil {
		return "", err
	}
	dec, err := plan.DecodePipeline(js)
	if err != nil {
		return "", fmt.Errorf("decode: %w\n%s", err, js)
	}
	built, err := exec.BuildQueryPipeline(dec, p.buildEnv())
	if err != nil {
		return "", fmt.Errorf("build: %w\n%s", err, js)
	}
	again, ok := exec.PipelinePlan(built)
	if !ok {
		return "", fmt.Errorf("the built pipeline has no plan form: %s", exec.PlanGap(built))
	}
	again.V = plan.Version
	if b, _ := again.Encode(); !bytes.Equal(b, js) {
		return "", fmt.Errorf("the built pipeline plans otherwise\nplanned %s\n  built %s", js, b)
	}
	got, err := runAnswer(p, built, x)
	if err != nil {
		return "", fmt.Errorf("built pipeline: %w", err)
	}
	if !samePlanAnswer(got, want) {
		return "", fmt.Errorf("built %s\nengine %s", stableJSON(got), stableJSON(want))
	}
	return "", nil
}

func runAnswer(p *planner, pl *exec.Pipeline, x *exec.Ctx) (*planOut, error) {
	b, err := pl.Execute(x)
	if err == nil {
		err = b.LoadCompact()
	}
	if err != nil {
		return nil, err
	}
	return p.answer(x, pl, b), nil
}

// TestBuildPipelineRefuses checks that a pipeline node the builder
// cannot honour is refused with the reason, never built into operators
// that would answer otherwise.
func TestBuildPipelineRefuses(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	ctx := context.Background()
	cases := []struct {
		q, want string
		edit    func(pp *plan.Pipeline)
	}{
		{"logs | count", `no snapshot of dataset "other"`, func(pp *plan.Pipeline) { pp.Source.Datasets = []string{"other"} }},
		{"datatable(a:long)[1]", "a cell of column a is string", func(pp *plan.Pipeline) {
			pp.Source.Cols[0][0] = plan.Const(vector.String, "1", nil)
		}},
		{"datatable(a:long)[1] | extend b = a + 1", "the plan says", func(pp *plan.Pipeline) {
			pp.Stages[0].Schema[1].Type = vector.String
		}},
		{"datatable(k:long)[1] | join (datatable(k:long)[1]) on k", "compares long with string", func(pp *plan.Pipeline) {
			pp.Stages[0].Join.Right[0] = plan.Const(vector.String, "1", nil)
		}},
		{"datatable(k:long)[1] | join (datatable(k:long)[1]) on k", `join kind "outer"`, func(pp *plan.Pipeline) {
			pp.Stages[0].Join.Kind = "outer"
		}},
		{"union (datatable(a:long)[1]), (datatable(b:long)[1])", "the plan says", func(pp *plan.Pipeline) {
			pp.Source.Schema = pp.Source.Schema[:1]
		}},
		{"print x = 'a' | redact 'a'", "not a string column", func(pp *plan.Pipeline) { pp.Stages[0].Idx = []int{3} }},
		{"logs | top 3 by status", "negative row count", func(pp *plan.Pipeline) { pp.Stages[len(pp.Stages)-1].N = -26 }},
		{"logs | summarize count() by bin(_time, 1h)", "time bin of column", func(pp *plan.Pipeline) {
			pp.Stages[0].BinCol = slices.IndexFunc(pp.Source.Schema, func(f plan.Field) bool { return f.Type == vector.String })
		}},
		{"logs | summarize count() by bin(_time, 1h)", "time bin of column", func(pp *plan.Pipeline) { pp.Stages[0].BinSize = 0 }},
		{"logs | extend c = cursor_current()", "cursor of column", func(pp *plan.Pipeline) {
			pp.Stages[0].Exprs[0].Index = slices.IndexFunc(pp.Source.Schema, func(f plan.Field) bool { return f.Type == vector.String })
		}},
		{"logs | extend s = tostring(status)", "tostring expects 1 argument", func(pp *plan.Pipeline) { pp.Stages[0].Exprs[0].Args = nil }},
		{"logs | summarize avg(req_duration_ms)", "avg expects 1 argument", func(pp *plan.Pipeline) { pp.Stages[0].Aggs[0].Args = nil }},
		{"logs | summarize percentile(req_duration_ms, 95)", "must be a constant", func(pp *plan.Pipeline) {
			pp.Stages[0].Aggs[0].Args[1] = pp.Stages[0].Aggs[0].Args[0]
		}},
		{"logs | extend s = resp_body_size_bytes + 1", "unknown arithmetic operator", func(pp *plan.Pipeline) { pp.Stages[0].Exprs[0].Op = "^" }},
		{"logs | where method in ('GET')", "unknown in operator", func(pp *plan.Pipeline) { pp.Stages[0].Pred.Op = "!inx" }},
		{"logs | top 3 by status", "no sort key", func(pp *plan.Pipeline) { pp.Stages[len(pp.Stages)-1].Order = nil }},
		{"logs | take 3", "negative row count", func(pp *plan.Pipeline) { pp.Stages[len(pp.Stages)-1].N = -1 }},
		{"logs | make-series count() on _time step 1h", "step not positive", func(pp *plan.Pipeline) {
			pp.Stages[len(pp.Stages)-1].Series.Step = plan.Const(vector.Int, int64(0), nil)
		}},
	}
	for _, c := range cases {
		p, pp, _, err := e.planReq(ctx, &exec.Request{APL: c.q, Now: fixtureNow}, nil, fixtureNow)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		c.edit(pp)
		_, err = exec.BuildQueryPipeline(pp, p.buildEnv())
		p.release()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.q, err, c.want)
		}
	}
}
