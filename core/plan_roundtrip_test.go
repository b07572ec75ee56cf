package core

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
)

// planQueries exercise every expression and stage kind of the plan IR
// beside the golden corpus.
var planQueries = []string{
	"logs | where method in ('GET', 'PUT') and status !in (404, 500) | count",
	"logs | where uri has_any ('api', 'nosuch') | summarize count() by method",
	"logs | where uri in~ ('/API/V1/TEXTDATA/CNFIGS') or method !in~ ('get') | count",
	"logs | where req_duration_ms between (0.5 .. 1.5) | count",
	"logs | where req_duration_ms !between (0.5 .. 1.5) | summarize count() by status",
	"logs | where _time between (datetime(2024-03-26T11:00:00Z) .. 30m) | count",
	"logs | where not(is_tls) | summarize countif(is_tls == false), countif(not(is_tls)) by method",
	"logs | where uri matches regex '/api/v[0-9]+/buy' | count",
	"logs | where uri !contains 'api' or uri startswith_cs '/api/v1/t' | count",
	"logs | where message !has 'the' and uri : 'commit' | count",
	"logs | extend a = -req_duration_ms, b = 0 - resp_body_size_bytes, c = resp_body_size_bytes % 7 | summarize sum(a), sum(b), sum(c)",
	"logs | extend city = geo.city, t0 = tags[0], tl = tags[-1], s = uri[1:4] | summarize count() by city, tostring(t0), s",
	"logs | extend c = cursor_current() | top 3 by _time desc | project c",
	"logs | project-away message, tags | top 5 by resp_body_size_bytes desc, uri asc",
	"logs | project-rename u = uri | where u endswith 'go' | distinct u",
	"logs | extend-valid status = 0 | summarize count() by tostring(status)",
	"logs | where _time > datetime(2024-03-26T12:00:00Z) | summarize count() by bin(_time, 5m)",
	"logs | where _time > ago(1d) | count",
	"logs | extend k = iff(status >= 400, 'err', 'ok'), d = case(req_duration_ms > 1, 'slow', 'fast') | summarize count() by k, d",
	"logs | where isnotnull(tags) | extend n = array_length(tags) | sort by n desc, uri asc | take 4 | project uri, n",
	"logs | where tostring(status) == '200' and req_duration_ms > 0.5 | project _time, uri | take 1000 | count",
	"logs | summarize min(server_datacenter), dcount(method), avg(req_duration_ms) by bin(_time, 1h)",
	"logs | where resp_body_size_bytes > 1000 | where req_duration_ms < 2.5 | project x = req_duration_ms * 1000, uri | top 2 by x asc",
	"logs | extend r = real(nan), i = real(+inf), z = -0.0, big = 9223372036854775807, ts = 1.5s, dy = dynamic({'a': [1, 'x', 2.5, true, null]}) | project r, i, z, big, ts, dy | take 1",
	"logs | where tostring(geo.country) == 'France' | summarize count() by tostring(geo.city)",
	"logs | parse uri with '/api/v' version:long '/' area '/' * | summarize count() by version, area",
	"logs | parse-where uri with * '/id/' rest | summarize count() by rest",
	"logs | parse kind=regex flags=i uri with '/API/' v '/' area:string '/' | summarize count() by v, area",
	"logs | parse kind=relaxed uri with '/api/v' n:long '/' * | summarize count() by n",
	"logs | parse uri with '/' method '/' * | summarize count() by method",
	"logs | mv-expand tags | summarize count() by tostring(tags)",
	"logs | mv-expand with_itemindex=i t = tags to typeof(string) limit 2 | summarize count() by t, i",
	"logs | extend b = geo | mv-expand kind=array b | summarize count() by tostring(b)",
	"logs | redact '[0-9]+' on uri | redact replaceToken='#' replaceHash=true 'v' | summarize count() by uri",
	"logs | parse-kv uri as (api:string, v1:string) with (pair_delimiter='/', kv_delimiter='v') | summarize count() by api, v1",
	"logs | parse-kv message as (were, linear) with (greedy=true) | summarize count() by were, linear",
}

// TestPlanRoundTrip is the property the plan IR promises: for every
// query of the golden corpus (and planQueries) whose pipeline can travel,
// plan -> encode -> decode -> build -> run over the same blocks answers
// what the pipeline planned from the text answers.
func TestPlanRoundTrip(t *testing.T) {
	c := newTestCluster(t)
	qs := append([]string(nil), planQueries...)
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.apl"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, string(src))
	}
	traveled := 0
	for i, q := range qs {
		want, err := query(t, c.a, q, func(r *exec.Request) { r.DisableCache = true })
		if err != nil {
			continue // the error corpus
		}
		got, ok := runViaPlan(t, c, q)
		if !ok {
			if i < len(planQueries) {
				t.Errorf("%s: does not travel", q)
			}
			continue
		}
		traveled++
		if !samePlanAnswer(got, want) {
			t.Errorf("%s\nvia plan %s\n  direct %s", q, stableJSON(got), stableJSON(want))
		}
	}
	t.Logf("%d of %d queries traveled as a plan", traveled, len(qs))
}

// runViaPlan plans q on node a, sends its first fragment, holding every
// block, through JSON to node b, and finishes it on a. ok is false when
// the pipeline cannot travel.
func runViaPlan(t *testing.T, c *testCluster, q string) (*planOut, bool) {
	t.Helper()
	ctx := context.Background()
	p, pl, x, err := c.a.prepare(ctx, &exec.Request{APL: q, Now: fixtureNow, DisableCache: true}, nil, fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	pf, ok := travellingFragment(pl, x)
	if !ok {
		return nil, false
	}
	src := pl.Src.(*exec.ScanSource)
	k, blk := pl.FirstBlocking()
	codec := blk.(exec.SinkCodec)
	js, err := pf.Encode()
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	dec, err := plan.Decode(js)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if again, _ := dec.Encode(); !bytes.Equal(again, js) {
		t.Fatalf("%s: the plan does not re-encode to its bytes\n%s\n%s", q, js, again)
	}
	wire, err := json.Marshal(&exec.Fragment{Plan: js, Now: fixtureNow})
	if err != nil {
		t.Fatal(err)
	}
	var f exec.Fragment
	if err := json.Unmarshal(wire, &f); err != nil {
		t.Fatal(err)
	}
	body, err := c.b.RunFragment(ctx, &f)
	if err != nil {
		t.Fatalf("%s: %v\nplan %s", q, err, js)
	}
	sinks, err := exec.DecodeFragment(x, codec, body)
	if err != nil {
		t.Fatal(err)
	}
	// As executeDistributed does, the receiver's own sinks come first
	// (here of no blocks): decoded sinks are merged into them.
	none := *src
	none.Parts = nil
	local, err := pl.ScanToSinks(x, &none, k, blk)
	if err != nil {
		t.Fatal(err)
	}
	res, err := blk.Finish(x, append(local, sinks...))
	if err == nil && k < len(pl.Stages) {
		res, err = exec.RunStages(x, pl.Stages[k+1:], res)
	}
	if err == nil {
		err = res.LoadCompact()
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return p.answer(x, pl, res), true
}

// travellingFragment is the fragment plan of pl over every block of its
// scan, as executeDistributed would send it; ok is false when pl does
// not travel.
func travellingFragment(pl *exec.Pipeline, x *exec.Ctx) (*plan.Fragment, bool) {
	src, ok := pl.Src.(*exec.ScanSource)
	k, blk := pl.FirstBlocking()
	_, okc := blk.(exec.SinkCodec)
	if !ok || !okc || len(src.Datasets) != 1 || src.WithSource != "" || !exec.CanTravel(x, blk) {
		return nil, false
	}
	pf, ok := exec.FragmentPlan(src, pl.Stages[:min(k+1, len(pl.Stages))])
	if !ok {
		return nil, false
	}
	for _, sp := range src.Parts {
		pf.Scan.Parts = append(pf.Scan.Parts, store.PartKey(sp.Part))
	}
	return pf, true
}

type planOut = output.Output

// samePlanAnswer compares two answers' fields exactly and their cells as
// sets of rows with floats equal to the last bits (sums added in another
// order), as the distributed tests do.
func samePlanAnswer(a, b *planOut) bool {
	ta, tb := render.Tabular(a).Tables, render.Tabular(b).Tables
	if len(ta) != len(tb) {
		return false
	}
	for i := range ta {
		fa, _ := json.Marshal(ta[i].Fields)
		fb, _ := json.Marshal(tb[i].Fields)
		ca, _ := json.Marshal(ta[i].Columns)
		cb, _ := json.Marshal(tb[i].Columns)
		if !bytes.Equal(fa, fb) || (!bytes.Equal(ca, cb) && !sameJSONNumbers(string(ca), string(cb))) {
			return false
		}
	}
	return true
}
