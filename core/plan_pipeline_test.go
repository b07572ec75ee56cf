package core

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
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
// pipelineQueries) whose pipeline has a plan form is planned, encoded,
// decoded, built from its nodes alone and run, and must answer what the
// planned pipeline answers; the built pipeline must plan to the same
// bytes. A query whose pipeline holds a source or stage without a plan
// form fails here.
func TestPipelinePlanRoundTrip(t *testing.T) {
	e := NewEngine(StoreCatalog(fixtureDB(t, 3, true)))
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
		case gap != "":
			t.Errorf("%s: has no plan form (%s)", q, gap)
		default:
			planned++
		}
	}
	t.Logf("%d of %d queries planned to a pipeline and round-tripped, %d are refused or fail", planned, len(qs), errs)
}

// pipelineRoundTrip plans q; gap names the first source or stage without
// a plan form ("" when it has one), or says that the planner refused q
// or its run failed (the error corpus), err a failed round trip or a
// different answer.
func pipelineRoundTrip(e *Engine, q string) (gap string, err error) {
	ctx := context.Background()
	req := &Request{APL: q, Now: fixtureNow, DisableCache: true}
	p, pl, x, err := e.prepare(ctx, req, nil, fixtureNow)
	if err != nil {
		return "refused: " + err.Error(), nil
	}
	defer p.release()
	if gap := planGap(pl); gap != "" {
		return gap, nil
	}
	pp, _ := pipelinePlan(pl)
	pp.V = plan.Version
	js, err := pp.Encode()
	if err != nil {
		return "", err
	}
	dec, err := plan.DecodePipeline(js)
	if err != nil {
		return "", fmt.Errorf("decode: %w\n%s", err, js)
	}
	built, err := buildQueryPipeline(dec, newBuildEnv(p.snaps, agg.Context{Start: req.Start, End: req.End}))
	if err != nil {
		return "", fmt.Errorf("build: %w\n%s", err, js)
	}
	again, ok := pipelinePlan(built)
	if !ok {
		return "", fmt.Errorf("the built pipeline has no plan form")
	}
	again.V = plan.Version
	if b, _ := again.Encode(); !bytes.Equal(b, js) {
		return "", fmt.Errorf("the built pipeline plans otherwise\nplanned %s\n  built %s", js, b)
	}
	want, err := runAnswer(p, pl, x)
	if err != nil {
		return "failed: " + err.Error(), nil
	}
	_, _, x2, _ := e.prepare(ctx, req, nil, fixtureNow)
	got, err := runAnswer(p, built, x2)
	if err != nil {
		return "", fmt.Errorf("built pipeline: %w", err)
	}
	if !samePlanAnswer(got, want) {
		return "", fmt.Errorf("built %s\nplanned %s", stableJSON(got), stableJSON(want))
	}
	return "", nil
}

func runAnswer(p *planner, pl *pipeline, x *execCtx) (*planOut, error) {
	b, err := pl.execute(x)
	if err == nil {
		err = b.compact()
	}
	if err != nil {
		return nil, err
	}
	return p.answer(x, pl, b), nil
}

// planGap names the first source or stage of pl (nested ones included)
// without a plan form.
func planGap(pl *pipeline) string {
	if _, ok := sourcePlan(pl.src); !ok {
		if g := sourceGap(pl.src); g != "" {
			return g
		}
	}
	for _, st := range pl.stages {
		p, ok := st.(planned)
		if !ok {
			return fmt.Sprintf("%T", st)
		}
		if u, ok := st.(*unionStage); ok {
			for _, pt := range u.src.parts[1:] {
				if g := planGap(pt.pl); g != "" {
					return g
				}
			}
		}
		if _, ok := p.toPlan(); !ok {
			return fmt.Sprintf("%T expression", st)
		}
	}
	return ""
}

func sourceGap(s source) string {
	switch s := s.(type) {
	case *tableSource:
		if s.sub != nil {
			return planGap(s.sub)
		}
	case *unionSource:
		for _, pt := range s.parts {
			if g := planGap(pt.pl); g != "" {
				return g
			}
		}
	case *scanSource:
		if s.stream != nil {
			return "stream scan"
		}
	}
	return fmt.Sprintf("%T", s)
}
