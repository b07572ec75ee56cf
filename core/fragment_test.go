package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
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

func newTestCluster(t *testing.T) *testCluster {
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
	body, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "http-logs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range splitLines(body, 5) {
		b := store.NewRowsBuilder()
		if _, err := ingest.Decode(chunk, ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b); err != nil {
			t.Fatal(err)
		}
		if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if ds.Info().NumBlocks < 4 {
		t.Fatalf("fixture has %d blocks; the test needs several", ds.Info().NumBlocks)
	}
	for _, e := range []**Engine{&c.a, &c.b} {
		db, err := store.OpenRemote(store.Options{Objects: c.objs, Refresh: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		*e = NewEngine(StoreCatalog(db))
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
			owners[rendezvous([]string{"a", name}, k)[0]]++
		}
		if owners["a"] > 0 && owners[name] > 0 {
			c.bName = name
		}
	}
	return c
}

func (c *testCluster) distribution(failures *[]string) *Distribution {
	return &Distribution{Nodes: []string{"a", c.bName}, Self: "a",
		Run: func(ctx context.Context, node string, f *Fragment) ([]byte, error) {
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
			var got Fragment
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
}

func tabularJSON(t *testing.T, e *Engine, req Request) (string, render.Status) {
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
		want, wst := tabularJSON(t, c.a, Request{APL: q, DisableCache: true})
		before := c.ran.Load()
		var fails []string
		got, gst := tabularJSON(t, c.a, Request{APL: q, DisableCache: true, Distribute: c.distribution(&fails)})
		if !sameJSONNumbers(got, want) {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
		if gst.RowsExamined != wst.RowsExamined || gst.BlocksExamined != wst.BlocksExamined {
			t.Errorf("%s: distributed examined %d rows / %d blocks, one node %d / %d", q,
				gst.RowsExamined, gst.BlocksExamined, wst.RowsExamined, wst.BlocksExamined)
		}
		if c.ran.Load() == before && travels(t, c.a, q) {
			t.Errorf("%s: node b ran no fragment", q)
		}
		if len(fails) > 0 {
			t.Errorf("%s: fragments failed: %v", q, fails)
		}
	}
}

// A node that fails is replaced: the receiver scans the blocks itself and
// the answer is whole.
func TestDistributedNodeDown(t *testing.T) {
	c := newTestCluster(t)
	c.failB.Store(true)
	for _, q := range distributedQueries {
		want, _ := tabularJSON(t, c.a, Request{APL: q, DisableCache: true})
		var fails []string
		got, _ := tabularJSON(t, c.a, Request{APL: q, DisableCache: true, Distribute: c.distribution(&fails)})
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
	_, err := c.b.RunFragment(context.Background(), &Fragment{APL: "['logs'] | count", Dataset: "logs",
		Parts:  []string{"datasets/logs/blocks/00000000000000ff-0000000000000000.blk"},
		Schema: []FragmentColumn{{"_sysTime", 4}, {"_time", 4}}})
	if !errors.Is(err, ErrFragmentParts) {
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
	return x == y
}

// travels reports whether the query's first blocking stage can be split.
func travels(t *testing.T, e *Engine, q string) bool {
	p, pl, err := e.prepare(context.Background(), &Request{APL: q}, nil, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	_, blk := pl.firstBlocking()
	return canTravel(p.x, blk)
}
