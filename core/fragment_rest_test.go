package core

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/testutil"
)

// freshCluster is an ingest node that has flushed part of the fixture
// and holds the rest in its buffer, and query node "a" over the bucket.
type freshCluster struct {
	objs    *store.MemObjects
	ingDB   *store.DB
	ing, a  *Engine
	ingDown bool
}

func newFreshCluster(t *testing.T) *freshCluster {
	t.Helper()
	c := &freshCluster{objs: store.NewMemObjects()}
	var err error
	c.ingDB, err = store.Open(t.TempDir(), store.Options{Objects: c.objs, NoSync: true, FlushRows: 1 << 20, SealRows: 30,
		FlushInterval: time.Hour, CompactInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ingDB.Close() })
	ds, err := c.ingDB.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	for i, chunk := range fixtureChunks(t, 5) {
		c.append(t, chunk)
		if i < 3 { // the last two chunks stay in the ingest node's buffer
			if err := ds.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.ing = NewEngine(exec.StoreCatalog(c.ingDB))
	ro, err := store.OpenRemote(store.Options{Objects: c.objs, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	c.a = NewEngine(exec.StoreCatalog(ro))
	return c
}

func (c *freshCluster) append(t *testing.T, ndjson []byte) {
	t.Helper()
	ds, err := c.ingDB.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	appendNDJSON(t, ds, ndjson)
}

// distribution reaches the ingest node in process; the fragment travels
// as JSON, and the ingest node's refusals reach the sender as errors.
func (c *freshCluster) distribution(failures *[]string) *exec.Distribution {
	return &exec.Distribution{Nodes: []string{"a"}, Self: "a", Ingest: "ing",
		Run: func(ctx context.Context, node string, f *exec.Fragment) ([]byte, error) {
			if node != "ing" || c.ingDown {
				return nil, errors.New("connection refused")
			}
			js, _ := json.Marshal(f)
			var got exec.Fragment
			if err := json.Unmarshal(js, &got); err != nil {
				return nil, err
			}
			return c.ing.RunFragment(ctx, &got)
		},
		OnFailure: func(node string, err error) {
			if failures != nil {
				*failures = append(*failures, node+": "+err.Error())
			}
		}}
}

// freshAnswer runs q on query node a with the ingest node's rest, and on
// the ingest node alone.
func (c *freshCluster) freshAnswer(t *testing.T, q string, failures *[]string) (got, want string, gst, wst render.Status) {
	t.Helper()
	want, wst = tabularJSON(t, c.ing, exec.Request{APL: q, DisableCache: true})
	got, gst = tabularJSON(t, c.a, exec.Request{APL: q, DisableCache: true, Distribute: c.distribution(failures)})
	return got, want, gst, wst
}

// A query node answers with the events the ingest node has not flushed,
// exactly as the ingest node itself answers, statistics included.
func TestRestAnswersAsIngestNode(t *testing.T) {
	c := newFreshCluster(t)
	stale, _ := tabularJSON(t, c.a, exec.Request{APL: "['logs'] | count", DisableCache: true})
	for _, q := range distributedQueries {
		var fails []string
		got, want, gst, wst := c.freshAnswer(t, q, &fails)
		if !sameJSONNumbers(got, want) {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
		if gst.RowsExamined != wst.RowsExamined || gst.IsPartial || len(fails) > 0 {
			t.Errorf("%s: examined %d rows (ingest node %d), partial %v, failures %v", q, gst.RowsExamined, wst.RowsExamined, gst.IsPartial, fails)
		}
	}
	if got, _ := tabularJSON(t, c.a, exec.Request{APL: "['logs'] | count", DisableCache: true, Distribute: c.distribution(nil)}); got == stale {
		t.Fatalf("the query node counts %s with and without the ingest node's buffer", got)
	}
}

// When a block the query node scans is gone from the ingest node (trimmed
// or compacted since the query node read the catalog), the ingest node
// answers for everything, and the answer still counts each event once.
func TestRestAfterBlocksChanged(t *testing.T) {
	c := newFreshCluster(t)
	ds, _ := c.ingDB.Get("logs")
	before := ds.Snapshot()
	var lo int64 = 1 << 62
	for _, p := range before.Parts {
		if store.PartKey(p) != "" {
			l, _ := p.TimeRange()
			lo = min(lo, l)
		}
	}
	before.Release()
	if _, err := ds.Trim(lo + 1); err != nil { // rewrites the oldest block
		t.Fatal(err)
	}
	keysOf := func() []string {
		s := ds.Snapshot()
		defer s.Release()
		var ks []string
		for _, p := range s.Parts {
			ks = append(ks, store.PartKey(p))
		}
		return ks
	}
	first := keysOf()
	testutil.Eventually(t, 20*time.Second, func() bool { return !slices.Equal(keysOf(), first) }, "the trim rewrote no block")
	var fails []string
	got, want, gst, wst := c.freshAnswer(t, "['logs'] | summarize count() by status", &fails)
	if !sameJSONNumbers(got, want) || gst.IsPartial {
		t.Errorf("after a trim on the ingest node\n got %s\nwant %s (partial %v, failures %v)", got, want, gst.IsPartial, fails)
	}
	if gst.RowsExamined != wst.RowsExamined {
		t.Errorf("after a trim on the ingest node the query node examined %d rows, the ingest node %d", gst.RowsExamined, wst.RowsExamined)
	}
}

// An ingest node that cannot be reached leaves the answer with what is
// flushed, marked partial, with a message naming the cause.
func TestRestPartialWhenIngestDown(t *testing.T) {
	c := newFreshCluster(t)
	flushed, _ := tabularJSON(t, c.a, exec.Request{APL: "['logs'] | count", DisableCache: true})
	c.ingDown = true
	var fails []string
	got, _, gst, _ := c.freshAnswer(t, "['logs'] | count", &fails)
	if got != flushed || !gst.IsPartial || len(fails) != 1 {
		t.Errorf("got %s (flushed %s), partial %v, failures %v", got, flushed, gst.IsPartial, fails)
	}
	if len(gst.Messages) != 1 || gst.Messages[0].Code != "apl_partialresult_unflushed" || !strings.Contains(gst.Messages[0].Msg, "ing") {
		t.Errorf("messages %+v", gst.Messages)
	}
}

// What the query node cannot add the ingest node's events to, it hands
// back as ErrNeedsIngest (the server forwards the query): buffered
// events of a new shape (a field no block has), and a query that cannot
// be cut into fragments (a union).
func TestRestNeedsIngest(t *testing.T) {
	c := newFreshCluster(t)
	c.append(t, []byte(`{"_time":"2024-03-26T15:00:00Z","status":200,"brand_new_field":"x"}`+"\n"))
	for _, q := range []string{"['logs'] | count", "union ['logs'], ['logs'] | count"} {
		_, err := c.a.Query(context.Background(), &exec.Request{APL: q, DisableCache: true, Distribute: c.distribution(nil)})
		if !errors.Is(err, exec.ErrNeedsIngest) {
			t.Errorf("%s: %v, want ErrNeedsIngest", q, err)
		}
	}
	// Without an ingest node to ask, the same queries answer here.
	if _, err := c.a.Query(context.Background(), &exec.Request{APL: "union ['logs'], ['logs'] | count", DisableCache: true}); err != nil {
		t.Fatal(err)
	}
}
