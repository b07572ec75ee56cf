package store

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

// benchBatches pre-generates HTTP-log batches so the benchmarks time the
// store, not the generator.
func benchBatches(nBatches, size int) []*Rows {
	g := newHTTPLogGen(7, nBatches*size)
	out := make([]*Rows, nBatches)
	for i := range out {
		out[i] = g.batch(size, int64(i)*1e9)
	}
	return out
}

func benchAppend(b *testing.B, db *DB, parallel bool) {
	ds, err := db.Create("bench")
	if err != nil {
		b.Fatal(err)
	}
	batches := benchBatches(16, 1000)
	b.SetBytes(int64(ndjsonSize(batches[0])))
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if _, err := ds.Append(batches[i%len(batches)]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	} else {
		for i := 0; i < b.N; i++ {
			if _, err := ds.Append(batches[i%len(batches)]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "rows/s")
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAppend measures Append of 1000-event HTTP-log batches; MB/s is
// against the batch's NDJSON size. Flushes into blocks happen in the
// background as they would in production.
func BenchmarkAppend(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchAppend(b, OpenMemory(Options{}), false) })
	for _, sync := range []bool{false, true} {
		name := "file-nosync"
		if sync {
			name = "file-sync"
		}
		b.Run(name, func(b *testing.B) {
			db, err := Open(b.TempDir(), Options{NoSync: !sync})
			if err != nil {
				b.Fatal(err)
			}
			benchAppend(b, db, false)
		})
		b.Run(name+"-parallel", func(b *testing.B) {
			db, err := Open(b.TempDir(), Options{NoSync: !sync})
			if err != nil {
				b.Fatal(err)
			}
			benchAppend(b, db, true)
		})
	}
}

// benchColumns are single columns of 65536 rows, one per encoding family.
func benchColumns() map[string]*vector.Vector {
	r := benchBatches(1, 65536)[0]
	out := map[string]*vector.Vector{}
	for i, k := range r.Keys {
		out[k.Name] = r.Cols[i]
	}
	tv := &vector.Vector{Type: vector.DateTime, Len: r.N, Ints: r.Time}
	out["_time"] = tv
	dyn := vector.New(vector.Dynamic, r.N)
	for i := 0; i < r.N; i++ {
		dyn.AppendDyn(map[string]any{"a": int64(i), "tags": []any{"x", float64(i) / 3}})
	}
	out["dynamic"] = dyn
	return out
}

func BenchmarkEncodeColumn(b *testing.B) {
	for name, v := range benchColumns() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(v.Len) * 8)
			var size int
			for i := 0; i < b.N; i++ {
				blob, _, err := encodeColumn(nil, v.Type, v, v.Len)
				if err != nil {
					b.Fatal(err)
				}
				size = len(blob)
			}
			b.ReportMetric(float64(size)/float64(v.Len), "bytes/row")
		})
	}
}

func BenchmarkDecodeColumn(b *testing.B) {
	for name, v := range benchColumns() {
		blob, _, err := encodeColumn(nil, v.Type, v, v.Len)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(v.Len) * 8)
			for i := 0; i < b.N; i++ {
				if _, err := decodeColumn("bench", 0, blob, v.Type, v.Len); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBytesPerEvent reports bytes on disk per event for the HTTP-log
// data once flushed into one block.
func BenchmarkBytesPerEvent(b *testing.B) {
	batches := benchBatches(262, 1000)
	b.ReportAllocs()
	var per float64
	for i := 0; i < b.N; i++ {
		db := OpenMemory(Options{FlushRows: math.MaxInt32})
		ds, _ := db.Create("http")
		for _, r := range batches {
			ds.Append(r)
		}
		ds.Flush()
		in := ds.Info()
		per = float64(in.CompressedBytes) / float64(in.NumEvents)
		db.Close()
	}
	b.ReportMetric(per, "bytes/event")
}

// BenchmarkBufferedMemory reports heap bytes per million buffered (not yet
// flushed) events, the batches being generated as the ingest decoders do.
func BenchmarkBufferedMemory(b *testing.B) {
	const n = 1_000_000
	for i := 0; i < b.N; i++ {
		g := newHTTPLogGen(9, n)
		db := OpenMemory(Options{FlushRows: math.MaxInt32, FlushInterval: time.Hour})
		ds, _ := db.Create("mem")
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for k := 0; k < n/1000; k++ {
			ds.Append(g.batch(1000, int64(k)))
		}
		g.times = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		mb := float64(after.HeapAlloc-before.HeapAlloc) / 1e6
		b.ReportMetric(mb*1e6/float64(ds.Info().NumEvents), "MB/Mevents")
		db.Close()
	}
}

// BenchmarkFlushBlock times turning 64 buffered batches of 1000 HTTP-log
// events into one encoded block (merge, sort, encode): the flush cost,
// with and without the term filters the seal builds (unless NoSealTermFilters).
func BenchmarkFlushBlock(b *testing.B) {
	for _, terms := range []bool{false, true} {
		b.Run(fmt.Sprintf("terms=%v", terms), func(b *testing.B) { benchFlushBlock(b, terms) })
	}
}

func benchFlushBlock(b *testing.B, terms bool) {
	batches := benchBatches(64, 1000)
	parts := make([]Part, len(batches))
	size := 0
	for i, r := range batches {
		parts[i] = NewRowsPart(fmt.Sprint(i), r)
		size += ndjsonSize(r)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cs, err := mergeParts(parts, math.MinInt64)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := encodeBlock(cs, blockMeta{terms: terms}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*64000)/b.Elapsed().Seconds(), "rows/s")
}
