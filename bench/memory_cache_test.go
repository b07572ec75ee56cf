package bench

import (
	"context"
	"testing"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
)

// cacheBytesPerRow bounds what the column cache holds per event once the
// seven reference queries have run over a block of 100,000: _time and
// req_duration_ms at eight bytes, uri's dictionary codes at four and its
// dictionary (15,600 distinct values) at six more, and status, method
// and server_datacenter at one byte each, their byte side alone
// (core/exec/colcache_pack.go): 29.3 in all. Kept wide, as before issue
// 29, the last three took 16 bytes a row more (45.3; 390 MB of cache at
// 10M events), and the collector let as much garbage pile up beside them.
const cacheBytesPerRow = 31

// TestColumnCacheBytesPerRow is make test's guard on the query-only
// memory of issue 29 (the 10M figure is make memory's): it fails when
// the column cache keeps the reference queries' columns in more bytes a
// row than cacheBytesPerRow.
func TestColumnCacheBytesPerRow(t *testing.T) {
	const n = 100_000
	d, err := db.Open(t.TempDir(), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ds, err := d.Create(queryDataset)
	if err != nil {
		t.Fatal(err)
	}
	body := newGen(1, n).AppendNDJSON(nil, n)
	now := time.Now().UnixNano()
	b := store.NewRowsBuilder()
	if res, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, b); err != nil || res.Ingested != n {
		t.Fatalf("decode: %v (%d of %d events)", err, res.Ingested, n)
	}
	if _, err := ds.Append(b.Finish(now)); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, q := range benchQueries {
		for range 2 { // the second run answers from the cache
			if _, err := d.Query(context.Background(), &core.Request{APL: q.apl(), DisableCache: true}); err != nil {
				t.Fatalf("%s: %v", q.id, err)
			}
		}
	}
	c := d.ColumnCache()
	perRow := float64(c.Used()) / n
	t.Logf("the column cache holds %d bytes, %.1f a row", c.Used(), perRow)
	if perRow < 16 {
		t.Fatalf("the column cache holds %.1f bytes a row: the queries' columns were not cached", perRow)
	}
	if perRow > cacheBytesPerRow {
		t.Errorf("the column cache holds %.1f bytes a row after the reference queries, want at most %d", perRow, cacheBytesPerRow)
	}
}
