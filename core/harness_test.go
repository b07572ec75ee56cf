package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
)

// fixtureNow is the fixed ingest and query time of the fixture, so
// _sysTime and now() are reproducible in golden files.
var fixtureNow = time.Date(2024, 3, 27, 0, 0, 0, 0, time.UTC)

// stillMemoryStore is an in-memory store whose clock stands still, so it
// never flushes or compacts on its own: a test's buffered chunks and
// blocks stay as the test made them however slowly the machine runs. On
// a wall clock a loaded race run flushed and merged them mid-test and
// changed the blocks and rows a query examined.
func stillMemoryStore() *store.DB {
	frozen := time.Unix(1_700_000_000, 0)
	return store.OpenMemory(store.Options{NoSync: true, Now: func() time.Time { return frozen }})
}

// fixtureDB loads testdata/fixtures/http-logs.ndjson (repository root) as
// dataset "logs", split into `parts` appends so queries cross several
// parts; flushed to blocks when blocks is true.
func fixtureDB(t testing.TB, parts int, blocks bool) *store.DB {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "http-logs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(body, parts)
	for _, chunk := range lines {
		b := store.NewRowsBuilder()
		res, err := ingest.Decode(chunk, ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b)
		if err != nil || res.Failed > 0 {
			t.Fatalf("fixture ingest: %v %+v", err, res.Failures)
		}
		if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
			t.Fatal(err)
		}
	}
	if blocks {
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// splitLines cuts NDJSON into n chunks of whole lines.
func splitLines(body []byte, n int) [][]byte {
	var lines [][]byte
	start := 0
	for i, c := range body {
		if c == '\n' {
			lines = append(lines, body[start:i+1])
			start = i + 1
		}
	}
	per := (len(lines) + n - 1) / n
	var out [][]byte
	for i := 0; i < len(lines); i += per {
		var chunk []byte
		for _, l := range lines[i:min(i+per, len(lines))] {
			chunk = append(chunk, l...)
		}
		out = append(out, chunk)
	}
	return out
}

// query runs q against e with the fixture clock.
func query(t testing.TB, e *Engine, q string, mod ...func(*exec.Request)) (*output.Output, error) {
	t.Helper()
	req := &exec.Request{APL: q, Now: fixtureNow, Workers: runtime.GOMAXPROCS(0)}
	for _, m := range mod {
		m(req)
	}
	return e.Query(context.Background(), req)
}

// mustQuery is query that fails the test on error.
func mustQuery(t testing.TB, e *Engine, q string, mod ...func(*exec.Request)) *output.Output {
	t.Helper()
	r, err := query(t, e, q, mod...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r
}

// rows returns the result as row-major JSON-ready values.
func rows(r *output.Output) [][]any {
	out := make([][]any, r.NumRows())
	names, _ := r.Columns()
	for i := range out {
		out[i] = make([]any, len(names))
		for j := range names {
			out[i][j] = r.Value(i, j)
		}
	}
	return out
}

// stableJSON renders what a golden file pins: every table's name, fields
// and columns (not timings or counters that vary between runs).
func stableJSON(r *output.Output) string {
	type table struct {
		Name    string                `json:"name"`
		Fields  []render.TabularField `json:"fields"`
		Order   []render.OrderRef     `json:"order"`
		Groups  []render.NameRef      `json:"groups"`
		Buckets *render.BucketsRef    `json:"buckets,omitempty"`
		Columns [][]any               `json:"columns"`
	}
	var tables []table
	for _, t := range render.Tabular(r).Tables {
		tables = append(tables, table{t.Name, t.Fields, t.Order, t.Groups, t.Buckets, t.Columns})
	}
	b, _ := json.MarshalIndent(tables, "", "  ")
	return string(b) + "\n"
}
