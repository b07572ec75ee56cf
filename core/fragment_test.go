package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// cluster is an ingest node and two query nodes over one in-memory bucket,
// in one process: each query node has its own engine.
type testCluster struct {
	objs  *store.MemObjects
	bName string // node b's name, chosen so that each node owns a block
	a, b  *Engine
	ran   atomic.Int64 // fragments node b ran
	failB atomic.Bool
}

func newTestCluster(t testing.TB) *testCluster {
	t.Helper()
	c := &testCluster{objs: store.NewMemObjects()}
	ing, err := store.Open(t.TempDir(), store.Options{Objects: c.objs, NoSync: true, FlushRows: 60, SealRows: 30,
		FlushInterval: time.Hour, CompactInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ing.Close()
	ds, err := ing.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range fixtureChunks(t, 5) {
		appendNDJSON(t, ds, chunk)
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if ds.Info().NumBlocks < 4 {
		t.Fatalf("fixture has %d blocks; the test needs several", ds.Info().NumBlocks)
	}
	c.openNodes(t)
	return c
}

// openNodes opens nodes a and b over the bucket c.objs holds and names b
// so that each node owns a block.
func (c *testCluster) openNodes(t testing.TB) {
	for _, e := range []**Engine{&c.a, &c.b} {
		db, err := store.OpenRemote(store.Options{Objects: c.objs, Refresh: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		*e = NewEngine(exec.StoreCatalog(db))
	}
	// Block keys carry random nonces: name node b so that rendezvous
	// hashing gives each node at least one block, or the test would not
	// test the split.
	var keys []string
	for _, k := range c.objs.Keys() {
		if strings.HasSuffix(k, ".blk") {
			keys = append(keys, k)
		}
	}
	for i := 0; c.bName == ""; i++ {
		name := fmt.Sprintf("b%d", i)
		owners := map[string]int{}
		for _, k := range keys {
			owners[exec.Rendezvous([]string{"a", name}, k)[0]]++
		}
		if owners["a"] > 0 && owners[name] > 0 {
			c.bName = name
		}
	}
}

// fixtureChunks is the http-logs fixture cut into n NDJSON chunks of
// whole lines.
func fixtureChunks(t testing.TB, n int) [][]byte {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "http-logs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	return splitLines(body, n)
}

// appendNDJSON decodes ndjson as the server does and appends it to ds.
func appendNDJSON(t testing.TB, ds *store.Dataset, ndjson []byte) {
	t.Helper()
	b := store.NewRowsBuilder()
	if _, err := ingest.Decode(ndjson, ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
		t.Fatal(err)
	}
}

func (c *testCluster) distribution(failures *[]string) *exec.Distribution {
	return &exec.Distribution{Nodes: []string{"a", c.bName}, Self: "a",
		Run: func(ctx context.Context, node string, f *exec.Fragment) ([]byte, error) {
			if node != c.bName {
				return nil, errors.New("unknown node " + node)
			}
			if c.failB.Load() {
				return nil, errors.New("node b is down")
			}
			// The fragment travels as JSON.
			js, err := json.Marshal(f)
			if err != nil {
				return nil, err
			}
			var got exec.Fragment
			if err := json.Unmarshal(js, &got); err != nil {
				return nil, err
			}
			c.ran.Add(1)
			return c.b.RunFragment(ctx, &got)
		},
		OnFailure: func(node string, err error) {
			if failures != nil {
				*failures = append(*failures, node+": "+err.Error())
			}
		}}
}

var distributedQueries = []string{
	"['logs'] | count",
	"['logs'] | where status >= 400 | count",
	"['logs'] | summarize count() by status",
	"['logs'] | summarize avg(req_duration_ms), max(req_duration_ms), min(method), dcount(uri), percentile(req_duration_ms, 90) by method",
	"['logs'] | summarize count() by bin(_time, 10m)",
	"['logs'] | summarize sum(resp_body_size_bytes)",
	"['logs'] | top 7 by req_duration_ms desc | project id, req_duration_ms",
	"['logs'] | where method == 'GET' | take 5 | count",
	"['logs'] | distinct method, status",
	"['logs'] | sort by req_duration_ms asc | take 3 | project req_duration_ms",
	"['logs'] | where uri contains 'api' | project uri, status | take 1000 | count",
	"['logs'] | extend d = req_duration_ms * 2 | summarize max(d) by server_datacenter",
	// status is dynamic (200 and "200"): its min/max states travel too.
	"['logs'] | summarize min(status), max(status), percentile(status, 50), stdev(status) by method",
	// The node that runs a fragment skips blocks as the sender would: by
	// statistics, by time, by term filters (the examined counts must agree).
	"['logs'] | where resp_body_size_bytes > 4900 and method == 'GET' | count",
	"['logs'] | where _time >= datetime(2024-03-26T14:00:00Z) | summarize count() by method",
	"['logs'] | where message has 'permutation' | count",
}

func tabularJSON(t *testing.T, e *Engine, req exec.Request) (string, render.Status) {
	t.Helper()
	r, err := e.Query(context.Background(), &req)
	if err != nil {
		t.Fatalf("%s: %v", req.APL, err)
	}
	tr := render.Tabular(r)
	js, _ := json.Marshal(tr.Tables[0].Columns)
	return string(js), tr.Status
}

// A query cut into fragments answers what it answers on one node, with
// the same statistics, and node b really runs fragments.
func TestDistributedSameAnswer(t *testing.T) {
	c := newTestCluster(t)
	for _, q := range distributedQueries {
		_, ran, fails := distributedMatches(t, c, q)
		if ran == 0 && travels(t, c.a, q) {
			t.Errorf("%s: node b ran no fragment", q)
		}
		if len(fails) > 0 {
			t.Errorf("%s: fragments failed: %v", q, fails)
		}
	}
}

// distributedMatches runs q on node a alone and cut into fragments, and
// checks that both give the same answer and statistics; it returns the
// answer, how many fragments node b ran and the fragments that failed.
func distributedMatches(t *testing.T, c *testCluster, q string) (want string, ran int64, fails []string) {
	t.Helper()
	want, wst := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true})
	before := c.ran.Load()
	got, gst := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Distribute: c.distribution(&fails)})
	if !sameJSONNumbers(got, want) {
		t.Errorf("%s\n got %s\nwant %s", q, got, want)
	}
	if gst.RowsExamined != wst.RowsExamined || gst.BlocksExamined != wst.BlocksExamined {
		t.Errorf("%s: distributed examined %d rows / %d blocks, one node %d / %d", q,
			gst.RowsExamined, gst.BlocksExamined, wst.RowsExamined, wst.BlocksExamined)
	}
	return want, c.ran.Load() - before, fails
}

// A node that fails is replaced: the receiver scans the blocks itself and
// the answer is whole.
func TestDistributedNodeDown(t *testing.T) {
	c := newTestCluster(t)
	c.failB.Store(true)
	for _, q := range distributedQueries {
		want, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true})
		var fails []string
		got, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Distribute: c.distribution(&fails)})
		if !sameJSONNumbers(got, want) {
			t.Errorf("%s with node b down\n got %s\nwant %s", q, got, want)
		}
		if len(fails) == 0 && travels(t, c.a, q) {
			t.Errorf("%s: the failure of node b was not reported", q)
		}
	}
}

// A fragment naming a block the node does not have is an error the
// receiver can act on, not a silently smaller answer.
func TestFragmentUnknownBlock(t *testing.T) {
	c := newTestCluster(t)
	pf := plan.Fragment{V: plan.Version, Scan: plan.Scan{Dataset: "logs",
		Parts:  []string{"datasets/logs/blocks/00000000000000ff-0000000000000000.blk"},
		Schema: []plan.Field{{Name: "_sysTime", Type: vector.DateTime}, {Name: "_time", Type: vector.DateTime}}},
		Stages: []plan.Stage{{Kind: plan.SCount, Schema: []plan.Field{{Name: "count", Type: vector.Int}}}}}
	js, err := pf.Encode()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.b.RunFragment(context.Background(), &exec.Fragment{Plan: js})
	if !errors.Is(err, exec.ErrFragmentParts) {
		t.Fatalf("got %v, want ErrFragmentParts", err)
	}
}

// sameJSONNumbers compares two column-major answers as sets of rows
// (groups come out in the order the workers merged them), letting floats
// differ in the last bits (sums added in another order).
func sameJSONNumbers(a, b string) bool {
	var x, y [][]any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	rx, ry := rowsOf(x), rowsOf(y)
	if len(rx) != len(ry) {
		return false
	}
	used := make([]bool, len(ry))
outer:
	for _, r := range rx {
		for j, q := range ry {
			if !used[j] && nearJSON(r, q) {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}

func rowsOf(cols [][]any) []any {
	if len(cols) == 0 {
		return nil
	}
	rows := make([]any, len(cols[0]))
	for i := range rows {
		r := make([]any, len(cols))
		for j := range cols {
			if i < len(cols[j]) {
				r[j] = cols[j][i]
			}
		}
		rows[i] = r
	}
	return rows
}

func nearJSON(x, y any) bool {
	switch x := x.(type) {
	case []any:
		ys, ok := y.([]any)
		if !ok || len(x) != len(ys) {
			return false
		}
		for i := range x {
			if !nearJSON(x[i], ys[i]) {
				return false
			}
		}
		return true
	case float64:
		if ys, ok := y.(string); ok { // a dynamic group key shows the first value seen: 503 or "503"
			yf, err := strconv.ParseFloat(ys, 64)
			return err == nil && yf == x
		}
		yf, ok := y.(float64)
		return ok && math.Abs(x-yf) <= 1e-9*math.Max(1, math.Abs(x))
	case string:
		if _, ok := y.(float64); ok {
			return nearJSON(y, x)
		}
	}
	return reflect.DeepEqual(x, y) // bags (maps) too
}

// travels reports whether the query's first blocking stage can be split.
func travels(t *testing.T, e *Engine, q string) bool {
	p, pl, x, err := e.prepare(context.Background(), &exec.Request{APL: q}, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	k, blk := pl.FirstBlocking()
	src, ok := pl.Src.(*exec.ScanSource)
	if !ok {
		return false
	}
	_, planned := exec.FragmentPlan(src, pl.Stages[:min(k+1, len(pl.Stages))])
	return planned && exec.CanTravel(x, blk)
}

// TestDistributedPagesDecoded runs a rare-word query over one paged block
// that another node owns: the status the first node renders reports the
// pages the other decoded, as a local run of the query does.
func TestDistributedPagesDecoded(t *testing.T) {
	g := exec.TermGranuleRows
	n := 3*g + 500
	objs := store.NewMemObjects()
	opts := pagedOptions(n)
	opts.Objects, opts.FlushInterval, opts.CompactInterval = objs, time.Hour, time.Hour
	ing, err := store.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ing.Create("logs")
	if err == nil {
		err = fillPaged(ds, n, g+10)
	}
	if cerr := ing.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	var engines [2]*Engine
	for i := range engines {
		db, err := store.OpenRemote(store.Options{Objects: objs, Refresh: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		engines[i] = NewEngine(exec.StoreCatalog(db))
	}
	var key string
	for _, k := range objs.Keys() {
		if strings.HasSuffix(k, ".blk") {
			key = k
		}
	}
	other := "b"
	for i := 0; exec.Rendezvous([]string{"a", other}, key)[0] != other; i++ {
		other = fmt.Sprintf("b%d", i)
	}
	var ran atomic.Int64
	dist := &exec.Distribution{Nodes: []string{"a", other}, Self: "a",
		Run: func(ctx context.Context, node string, f *exec.Fragment) ([]byte, error) {
			js, err := json.Marshal(f)
			if err != nil {
				return nil, err
			}
			var got exec.Fragment
			if err := json.Unmarshal(js, &got); err != nil {
				return nil, err
			}
			ran.Add(1)
			return engines[1].RunFragment(ctx, &got)
		}}
	q := "['logs'] | where message has '" + gen.RareWord + "' | project _time, message"
	local := mustQuery(t, engines[0], q, noColumnCache)
	remote := mustQuery(t, engines[0], q, noColumnCache, func(r *exec.Request) { r.Distribute = dist })
	if ran.Load() == 0 {
		t.Fatal("no fragment ran on the other node")
	}
	if p := local.Stats.PagesDecoded; p < 1 {
		t.Fatalf("the local query decoded %d pages, want the rare word's", p)
	}
	js, err := json.Marshal(render.Tabular(remote).Status)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"pagesDecoded":%d`, local.Stats.PagesDecoded)
	if !strings.Contains(string(js), want) {
		t.Fatalf("distributed status %s, want %s as the local query", js, want)
	}
}

// A node of another plan version refuses the fragment by name, before it
// scans anything, and the query still answers whole: the receiver scans
// the refused blocks itself (a mixed-version cluster degrades to local
// scans, never to wrong answers).
func TestFragmentNewerPlanRefused(t *testing.T) {
	c := newTestCluster(t)
	for _, edit := range []struct{ from, to, want string }{
		{`"v":1`, `"v":3`, "version 3"},
		{"", "no plan", "without a plan"},
		{`"k":"summarize"`, `"k":"summarize2"`, `stage kind "summarize2"`},
		{`"k":"col"`, `"k":"col2"`, `expression kind "col2"`},
	} {
		var fails []string
		d := c.distribution(&fails)
		run := d.Run
		d.Run = func(ctx context.Context, node string, f *exec.Fragment) ([]byte, error) {
			g := *f
			if edit.from == "" { // a node from before plans sent its text
				g.Plan = nil
			} else {
				g.Plan = json.RawMessage(strings.Replace(string(f.Plan), edit.from, edit.to, 1))
			}
			return run(ctx, node, &g)
		}
		q := "['logs'] | where status >= 400 | summarize count() by method"
		want, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true})
		got, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Distribute: d})
		if !sameJSONNumbers(got, want) {
			t.Errorf("%s with a plan of %s\n got %s\nwant %s", q, edit.to, got, want)
		}
		if len(fails) == 0 || !strings.Contains(fails[0], edit.want) || !strings.Contains(fails[0], "unsupported") {
			t.Errorf("plan with %s: failures %v, want one naming %s", edit.to, fails, edit.want)
		}
	}
}

// A query with request variables travels too: they are constants of the
// plan, where the query text alone could not carry them.
func TestDistributedVariables(t *testing.T) {
	c := newTestCluster(t)
	q := "['logs'] | where status >= minStatus and method in (methods) | summarize count() by method"
	vars := map[string]any{"minStatus": 400, "methods": []any{"GET", "POST"}}
	want, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Variables: vars})
	var fails []string
	got, _ := tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Variables: vars, Distribute: c.distribution(&fails)})
	if !sameJSONNumbers(got, want) || len(fails) > 0 {
		t.Errorf("got %s, want %s (failures %v)", got, want, fails)
	}
	if c.ran.Load() == 0 {
		t.Error("node b ran no fragment of a query with variables")
	}
}

// Redact and parse-kv read nothing but their batch and carry their
// regular expressions as text, so a query with one before its first
// blocking stage is cut into fragments: each travels as JSON, node b
// decodes and builds it, and the merged answer and counters are one
// node's.
func TestDistributedRedactParseKv(t *testing.T) {
	c := newTestCluster(t)
	for _, q := range []string{
		"['logs'] | redact '[0-9]+' on uri | summarize count() by uri",
		"['logs'] | redact replaceToken='#' replaceHash=true redactGroups=true 'v([0-9])' | distinct uri",
		"['logs'] | where method == 'GET' | redact dynamic(['a', 'e']) | top 3 by id asc | project id, message",
		"['logs'] | parse-kv uri as (api:string, v1:string) with (pair_delimiter='/', kv_delimiter='v') | summarize count() by api, v1",
		"['logs'] | parse-kv uri as (x:long, y) with (regex='([a-z]+)/([0-9a-z]+)') | summarize count() by x, y",
		"['logs'] | parse-kv message as (were, linear) | where isnotempty(were) | summarize count() by were, linear",
	} {
		if !travels(t, c.a, q) {
			t.Errorf("%s: is not cut into fragments", q)
			continue
		}
		want, ran, fails := distributedMatches(t, c, q)
		if ran == 0 || len(fails) > 0 {
			t.Errorf("%s: node b ran %d fragments, failures %v", q, ran, fails)
		}
		if len(want) < 10 {
			t.Errorf("%s: the answer %s is too small to tell", q, want)
		}
	}
}
