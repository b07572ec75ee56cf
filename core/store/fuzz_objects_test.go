//go:build !js

package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// FuzzCatalog reads arbitrary catalog versions the way a query node does
// (a bucket is shared, so its objects are input): bad JSON or a bad index
// is an error naming the object, never a panic, and a catalog that opens
// yields parts whose reads fail cleanly.
func FuzzCatalog(f *testing.F) {
	objs := NewMemObjects()
	db, err := Open(f.TempDir(), Options{Objects: objs, NoSync: true, FlushInterval: time.Hour})
	if err != nil {
		f.Fatal(err)
	}
	ds, _ := db.Create("logs")
	ds.Append(mixedRows(50, 1e18))
	ds.Flush()
	db.Close()
	for _, k := range objs.Keys() {
		if b, err := objs.Get(context.Background(), k); err == nil && json.Valid(b) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := NewMemObjects()
		mem.Put(context.Background(), catalogKey("logs", 1), data)
		for _, k := range objs.Keys() { // the blocks the seeds name
			if b, err := objs.Get(context.Background(), k); err == nil {
				mem.Put(context.Background(), k, b)
			}
		}
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
