package server

import (
	"testing"
)

// flush seals a dataset's buffered events into blocks, the only parts
// the result cache answers from.
func (ts *testServer) flush(ds string) {
	ts.t.Helper()
	if err := ts.s.db.Flush(ds); err != nil {
		ts.t.Fatal(err)
	}
}

// After the right side of a join is deleted and created again with new
// events, the join answers the new ones, not the cached old answer.
func TestAPLCacheJoinAfterRecreate(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("alpha")
	ts.createDataset("beta")
	ts.ingestEvents("alpha", 0, 3000)
	ts.ingestEvents("beta", 0, 500)
	ts.flush("alpha")
	ts.flush("beta")
	count := func() (any, int) {
		var res struct {
			Status aplStatus `json:"status"`
			Tables []struct {
				Columns [][]any `json:"columns"`
			} `json:"tables"`
		}
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
			"apl": "['alpha'] | join kind=inner (['beta'] | project n) on n | count"}}, 200).json(t, &res)
		return res.Tables[0].Columns[0][0], res.Status.CacheStatus
	}
	if n, _ := count(); n != float64(500) {
		t.Fatalf("join counted %v, want 500", n)
	}
	if _, st := count(); st != 2 {
		t.Fatalf("the repeated join has cacheStatus %d, want 2", st)
	}
	ts.must(req{method: "DELETE", path: "/v1/datasets/beta"}, 204)
	ts.createDataset("beta")
	ts.ingestEvents("beta", 1000, 3000)
	ts.flush("beta")
	if n, st := count(); n != float64(2000) || st != 1 {
		t.Errorf("after beta was re-created: count %v, cacheStatus %d; want 2000 computed", n, st)
	}
}

// Paging with minCursor walks forward through every event with the cache
// on.
func TestAPLCacheCursorPaging(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("big")
	ts.ingestEvents("big", 0, 2500)
	ts.flush("big")
	total, cursor := 0, ""
	for page := 0; page < 4; page++ {
		body := map[string]any{"apl": "['big']"}
		if cursor != "" {
			body["cursor"] = cursor
		}
		ts.aplRows(body) // a second run of the page is answered by the cache
		n, st := ts.aplRows(body)
		if st.CacheStatus != 2 {
			t.Errorf("page %d: cacheStatus %d on its second run", page, st.CacheStatus)
		}
		total += n
		if n == 0 {
			break
		}
		cursor = st.MinCursor
	}
	if total != 2500 {
		t.Errorf("paging returned %d events of 2500", total)
	}
}

// Two tokens that may read different datasets never share a cached
// answer, even for a query whose first dataset both may read.
func TestAPLCachePermittedDatasets(t *testing.T) {
	ts := newTestServer(t)
	for _, ds := range []string{"main", "side1", "side2"} {
		ts.createDataset(ds)
		ts.ingestEvents(ds, 0, 100)
		ts.flush(ds)
	}
	read := map[string]any{"query": []string{"read"}}
	wide := ts.newToken(map[string]any{"main": read, "side1": read, "side2": read}, nil).Token
	narrow := ts.newToken(map[string]any{"main": read, "side1": read}, nil).Token
	count := func(tok string) (any, int) {
		var res struct {
			Status aplStatus `json:"status"`
			Tables []struct {
				Columns [][]any `json:"columns"`
			} `json:"tables"`
		}
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", token: tok, body: map[string]any{
			"apl": "['main'] | join kind=inner (['side*']) on n | count"}}, 200).json(t, &res)
		return res.Tables[0].Columns[0][0], res.Status.CacheStatus
	}
	w, _ := count(wide)
	if n, st := count(narrow); n == w || st != 1 {
		t.Errorf("the narrow token got count %v, cacheStatus %d; the wide one %v", n, st, w)
	}
}

// A query calling a function whose value changes between runs is
// computed every time.
func TestAPLCacheVolatileFunctions(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.ingestEvents("ds", 0, 100)
	ts.flush("ds")
	for _, apl := range []string{
		"['ds'] | where _time > now (-1000d) | count",
		"['ds'] | sample 0.5 | count",
		"['ds'] | extend r = rand() | summarize avg(r)",
	} {
		for run := range 2 {
			var res struct {
				Status aplStatus `json:"status"`
			}
			ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": apl}}, 200).json(t, &res)
			if res.Status.CacheStatus != 1 {
				t.Errorf("run %d of %s: cacheStatus %d", run+1, apl, res.Status.CacheStatus)
			}
		}
	}
}

// Redefining a virtual field changes the next answer over the same
// blocks.
func TestAPLCacheVirtualFieldChange(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.ingestEvents("ds", 0, 100)
	ts.flush("ds")
	var vf struct {
		ID string `json:"id"`
	}
	ts.must(req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "ds", "name": "v", "expression": "n * 2"}}, 200).json(t, &vf)
	sum := func() any {
		var res struct {
			Tables []struct {
				Columns [][]any `json:"columns"`
			} `json:"tables"`
		}
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['ds'] | summarize sum(v)"}}, 200).json(t, &res)
		return res.Tables[0].Columns[0][0]
	}
	if got := sum(); got != float64(9900) {
		t.Fatalf("sum(v) with v = n * 2: %v", got)
	}
	ts.must(req{method: "PUT", path: "/v2/vfields/" + vf.ID, body: map[string]any{"dataset": "ds", "name": "v", "expression": "n * 3"}}, 200)
	if got := sum(); got != float64(14850) {
		t.Errorf("sum(v) after v became n * 3: %v, want 14850", got)
	}
}
