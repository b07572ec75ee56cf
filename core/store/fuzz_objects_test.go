//go:build !js

package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzCatalog reads arbitrary catalog versions the way a query node does
// (a bucket is shared, so its objects are input), alone or as a delta on
// a real first version: bad JSON, a delta that does not fit or a bad
// index is an error naming the object, never a panic, and a catalog that
// opens yields parts whose reads fail cleanly.
func FuzzCatalog(f *testing.F) {
	objs := NewMemObjects()
	db, err := Open(f.TempDir(), Options{Objects: objs, NoSync: true, FlushInterval: time.Hour}) // seeds with termRanges
	if err != nil {
		f.Fatal(err)
	}
	ds, _ := db.Create("logs")
	ds.Append(mixedRows(50, 1e18))
	ds.Flush()
	db.Close()
	for _, k := range objs.Keys() {
		if b, err := objs.Get(context.Background(), k); err == nil && json.Valid(b) {
			f.Add(b, false)
			f.Add(b, true)
			f.Add(zstdCompress(nil, b), true) // as a large version is stored
		}
	}
	first, err := objs.Get(context.Background(), catalogKey("logs", 1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, asDelta bool) {
		mem := NewMemObjects()
		for _, k := range objs.Keys() { // the blocks the seeds name
			if b, err := objs.Get(context.Background(), k); err == nil && !strings.Contains(k, "/catalog/") {
				mem.Put(context.Background(), k, b)
			}
		}
		v := uint64(1)
		if asDelta { // data as version 2, on the writer's real version 1
			mem.Put(context.Background(), catalogKey("logs", 1), first)
			v = 2
		}
		mem.Put(context.Background(), catalogKey("logs", v), data)
		cat, err := loadCatalog(context.Background(), mem, "logs", nil)
		if err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		for _, b := range cat.Blocks {
			p, err := remotePart(mem, b, t.Logf)
			if err != nil {
				continue
			}
			if p.Rows() > 1<<16 {
				continue
			}
			for _, m := range p.Columns() {
				p.ReadColumn(m.Key) // an error is fine; a panic is not
				if m.Terms != nil {
					m.Terms.Granules([]string{"hello"}) // reads the block's index
				}
			}
		}
	})
}

// FuzzDecodeColumns decodes arbitrary partial results, which arrive from
// other nodes: an error or columns of the claimed row count.
func FuzzDecodeColumns(f *testing.F) {
	r := mixedRows(40, 1e18)
	b, _ := EncodeColumns(nil, r.Cols, r.N)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		cols, n, _, err := DecodeColumns(data)
		if err != nil {
			return
		}
		for _, c := range cols {
			if c.Len != n {
				t.Fatalf("column of %d rows, %d claimed", c.Len, n)
			}
		}
	})
}
