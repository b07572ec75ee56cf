package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// benchOpsRows is the size of the dataset the operator benchmarks read.
const benchOpsRows = 200_000

var benchOpsEngine *Engine

// opsBenchEngine builds (once) a memory store with one dataset "logs" of
// access-log-like events: 50 URIs, 5 statuses, a key=value message with
// mostly distinct values and a small dynamic array per event.
func opsBenchEngine(b *testing.B) *Engine {
	b.Helper()
	if benchOpsEngine != nil {
		return benchOpsEngine
	}
	db := store.OpenMemory(store.Options{SealRows: 65536})
	ds, err := db.Create("logs")
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	statuses := []int64{200, 201, 404, 500, 302}
	for start := 0; start < benchOpsRows; start += 10_000 {
		rb := store.NewRowsBuilder()
		for i := start; i < start+10_000; i++ {
			rb.Begin()
			rb.SetTime(t0 + int64(i)*int64(time.Second))
			rb.SetString("uri", fmt.Sprintf("/api/v1/item/%d", i%50))
			rb.SetInt("status", statuses[i%len(statuses)])
			rb.SetString("msg", fmt.Sprintf("user=u%d action=login ms=%d", i%5000, i%997))
			rb.SetDynamic("tags", []any{"a", int64(i % 7), "c"})
			rb.End(t0)
		}
		if _, err := ds.Append(rb.Finish(t0)); err != nil {
			b.Fatal(err)
		}
	}
	benchOpsEngine = NewEngine(exec.StoreCatalog(db))
	return benchOpsEngine
}

func benchOpsQuery(b *testing.B, q string, wantRows int) {
	e := opsBenchEngine(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.Query(context.Background(), &exec.Request{APL: q, DefaultLimit: -1})
		if err != nil {
			b.Fatal(err)
		}
		if wantRows >= 0 && res.NumRows() != wantRows {
			b.Fatalf("%d rows, want %d", res.NumRows(), wantRows)
		}
	}
	b.ReportMetric(float64(benchOpsRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkLookupSmallTable(b *testing.B) {
	benchOpsQuery(b, `let S = datatable(status:long, text:string)[200,'OK', 404,'Not Found', 500,'Error'];
logs | lookup S on status | summarize count() by text`, 4)
}

func BenchmarkJoinInnerManyToOne(b *testing.B) {
	benchOpsQuery(b, `logs | join kind=inner (logs | summarize n = count() by uri) on uri | count`, 1)
}

func BenchmarkJoinLeftAntiLarge(b *testing.B) {
	benchOpsQuery(b, `logs | join kind=leftanti (logs | where status == 500) on msg | count`, 1)
}

func BenchmarkParseDictionaryColumn(b *testing.B) {
	benchOpsQuery(b, `logs | parse uri with '/api/v1/' kind '/' id:long | summarize count() by kind`, 1)
}

func BenchmarkParsePlainColumn(b *testing.B) {
	benchOpsQuery(b, `logs | parse msg with 'user=' user ' action=' action ' ms=' ms:long | summarize sum(ms)`, 1)
}

func BenchmarkParseKv(b *testing.B) {
	benchOpsQuery(b, `logs | parse-kv msg as (user, ms:long) with (pair_delimiter=' ', kv_delimiter='=') | summarize sum(ms)`, 1)
}

func BenchmarkMvExpand(b *testing.B) {
	benchOpsQuery(b, `logs | mv-expand tags | count`, 1)
}

func BenchmarkMakeSeries(b *testing.B) {
	benchOpsQuery(b, `logs | make-series count(), avg(status) on _time step 1h by uri`, 50)
}

func BenchmarkRedact(b *testing.B) {
	benchOpsQuery(b, `logs | redact @'\d+' on msg | summarize dcount(msg)`, 1)
}
