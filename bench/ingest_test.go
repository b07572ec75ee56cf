package bench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// Events per request body: about 1 MB and 4 MB of NDJSON (2,800 and
// 11,000 events of the tidy shape), the range log shippers batch.
var (
	events1MB = eventsPer(1_040_000)
	events4MB = eventsPer(4_100_000)
)

// tempDir makes a directory that the caller removes (b.TempDir would keep
// every ramp-up run's gigabytes until the benchmark ends).
func tempDir(tb testing.TB, pattern string) (string, func()) {
	tb.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		tb.Fatal(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// ingestBody decodes one NDJSON body and appends it durably, as the
// server's ingest handler does.
func ingestBody(ds *store.Dataset, body []byte, events int) error {
	now := time.Now().UnixNano()
	rb := store.NewRowsBuilder()
	res, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, rb)
	if err != nil {
		return err
	}
	if res.Ingested != events || res.Failed != 0 {
		return fmt.Errorf("decoded %d of %d events (%d failed: %v)", res.Ingested, events, res.Failed, res.Failures)
	}
	_, err = ds.Append(rb.Finish(now))
	return err
}

// BenchmarkIngestInProcess measures the write path without HTTP: NDJSON
// decode into column builders and a durable (fsynced) WAL append per 4 MB
// body, then a flush of everything into block files.
//
// serial: one goroutine, each op one body of fresh events (generated with
// the timer stopped). It reports the bytes the flushed dataset takes on
// disk per event, in all (disk-B/event) and in block files only
// (blocks-B/event); these settle once b.N*11,000 events fill whole blocks
// (use -benchtime 91x for 1M events).
//
// conc=4: four goroutines append the same pre-generated bodies as
// BenchmarkIngestHTTP/body=4MB/conc=4, so the two differ only by HTTP.
func BenchmarkIngestInProcess(b *testing.B) {
	b.Run("serial", benchIngestSerial)
	b.Run("conc=4", func(b *testing.B) { benchIngestConcurrent(b, events4MB, 4) })
}

// openIngestDataset opens a store in a fresh directory with one dataset.
func openIngestDataset(b *testing.B, opts store.Options) (dir string, ds *store.Dataset, done func()) {
	dir, cleanup := tempDir(b, "aplite-bench-ingest-")
	db, err := store.Open(dir, opts)
	if err != nil {
		cleanup()
		b.Fatal(err)
	}
	if ds, err = db.Create("ingest"); err != nil {
		db.Close()
		cleanup()
		b.Fatal(err)
	}
	return dir, ds, func() {
		if err := db.Close(); err != nil {
			b.Error(err)
		}
		cleanup()
	}
}

func benchIngestSerial(b *testing.B) {
	dir, ds, done := openIngestDataset(b, store.Options{})
	defer done()
	g := newGen(11, b.N*events4MB)
	body := g.AppendNDJSON(nil, events4MB)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	var inBytes int64
	var cpu time.Duration
	began := processCPU()
	for i := range b.N {
		if i > 0 {
			b.StopTimer()
			cpu += processCPU() - began
			body = g.AppendNDJSON(make([]byte, 0, len(body)+4096), events4MB)
			began = processCPU()
			b.StartTimer()
		}
		inBytes += int64(len(body))
		if err := ingestBody(ds, body, events4MB); err != nil {
			b.Fatal(err)
		}
	}
	if err := ds.Flush(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu += processCPU() - began
	events := b.N * events4MB
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(inBytes)/1e6/cpu.Seconds(), "MB/cpu-s")
	total, blocks := dirBytes(b, dir)
	b.ReportMetric(float64(total)/float64(events), "disk-B/event")
	b.ReportMetric(float64(blocks)/float64(events), "blocks-B/event")
	b.ReportMetric(float64(inBytes)/float64(events), "ndjson-B/event")
}

// benchIngestConcurrent has conc goroutines ingest pre-generated bodies;
// each op is one body. Like the HTTP benchmark it leaves flushing to the
// store's background (every 262,144 rows) instead of timing a final one.
func benchIngestConcurrent(b *testing.B, events, conc int) {
	bodies := bodiesOf(events, b.N)
	_, ds, done := openIngestDataset(b, store.Options{})
	defer done()
	b.SetBytes(avgLen(bodies))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	err := parallel(b.N, conc, func(i int) error {
		return ingestBody(ds, bodies[i%len(bodies)], events)
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	reportIngest(b, events, avgLen(bodies), processCPU()-cpu)
}

// parallel runs op(0..n-1) on conc goroutines and returns the first
// error (after which the remaining ops are skipped).
func parallel(n, conc int, op func(i int) error) error {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if err := op(int(i)); err != nil {
					errMu.Lock()
					if first == nil {
						first = err
					}
					errMu.Unlock()
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func avgLen(bodies [][]byte) int64 {
	var size int64
	for _, body := range bodies {
		size += int64(len(body))
	}
	return size / int64(len(bodies))
}

// dirBytes sums the sizes of the files under dir, and of the block files
// among them.
func dirBytes(tb testing.TB, dir string) (total, blocks int64) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		if strings.HasSuffix(path, ".blk") {
			blocks += info.Size()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total, blocks
}

// BenchmarkIngestBuffered measures the memory one million acknowledged
// but not yet flushed events hold: each op ingests 1M fresh events into a
// dataset that never flushes, sampling HeapInuse after every append. It
// reports the retained heap after a GC (live-MB/Mevents) and the peak seen
// while ingesting (peak-MB/Mevents, garbage included), both per million
// events. Run it with -benchtime 1x: one op takes seconds.
func BenchmarkIngestBuffered(b *testing.B) {
	const total = 1_000_000
	b.ReportAllocs()
	var live, peak float64
	for range b.N {
		l, p := bufferedMemory(b, total)
		live, peak = max(live, l), max(peak, p)
	}
	b.ReportMetric(live/(1<<20)/(total/1e6), "live-MB/Mevents")
	b.ReportMetric(peak/(1<<20)/(total/1e6), "peak-MB/Mevents")
}

// bufferedMemory ingests n events without flushing and returns the live
// and peak heap growth in bytes.
func bufferedMemory(b *testing.B, n int) (live, peak float64) {
	b.StopTimer()
	dir, ds, done := openIngestDataset(b, store.Options{FlushRows: 1 << 30, FlushInterval: time.Hour, CompactInterval: time.Hour})
	defer done()
	g := newGen(12, n)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := float64(ms.HeapInuse)
	for done := 0; done < n; done += events4MB {
		k := min(events4MB, n-done)
		body := g.AppendNDJSON(make([]byte, 0, k*900), k)
		b.StartTimer()
		if err := ingestBody(ds, body, k); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		body = nil
		runtime.ReadMemStats(&ms)
		peak = max(peak, float64(ms.HeapInuse)-base)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	live = float64(ms.HeapInuse) - base
	if _, blocks := dirBytes(b, dir); ds.Info().NumEvents != int64(n) || blocks != 0 {
		b.Fatalf("dataset holds %d events and %d bytes of block files, want %d events, none flushed", ds.Info().NumEvents, blocks, n)
	}
	runtime.KeepAlive(ds)
	return live, peak
}

// bodyCache holds pre-generated request bodies per size, all distinct
// (repeating bodies would repeat ids and make the data unrealistically
// compressible), kept for the process so ramp-up runs reuse them.
type bodyCache struct {
	g      *gen.Generator
	bodies [][]byte
}

var (
	bodiesMu sync.Mutex
	bodies   = map[int]*bodyCache{}
)

// maxBodies caps the distinct bodies per size (1 GB of 4 MB bodies);
// benchmarks that run more ops than that cycle through them.
const maxBodies = 256

// bodiesOf returns at least min(n, maxBodies) distinct bodies of the
// given number of events, generating the missing ones.
func bodiesOf(events, n int) [][]byte {
	bodiesMu.Lock()
	defer bodiesMu.Unlock()
	c := bodies[events]
	if c == nil {
		c = &bodyCache{g: newGen(int64(events), events*maxBodies)}
		bodies[events] = c
	}
	for len(c.bodies) < min(max(n, 1), maxBodies) {
		c.bodies = append(c.bodies, c.g.AppendNDJSON(make([]byte, 0, events*900), events))
	}
	return c.bodies
}

// BenchmarkIngestHTTP measures ingest end to end over loopback: conc
// clients post NDJSON bodies to POST /v1/datasets/{id}/ingest of a real
// server (fsync on, background flushes to blocks). Client and server share
// the machine's cores, as on a single-box deployment.
func BenchmarkIngestHTTP(b *testing.B) {
	for _, c := range []struct {
		name         string
		events, conc int
	}{
		{"body=1MB/conc=4", events1MB, 4},
		{"body=4MB/conc=4", events4MB, 4},
		{"body=4MB/conc=1", events4MB, 1},
	} {
		b.Run(c.name, func(b *testing.B) { benchIngestHTTP(b, c.events, c.conc) })
	}
}

func benchIngestHTTP(b *testing.B, events, conc int) {
	bodies := bodiesOf(events, b.N)
	dir, cleanup := tempDir(b, "aplite-bench-http-ingest-")
	defer cleanup()
	h := startServer(b, dir, nil, conc)
	defer h.stop(b)
	h.createDataset(b, "ingest")
	reqs := make(chan *fasthttp.Request, conc)
	for range conc {
		reqs <- fasthttp.AcquireRequest()
	}
	b.SetBytes(avgLen(bodies))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	err := parallel(b.N, conc, func(i int) error {
		req, resp := <-reqs, fasthttp.AcquireResponse()
		defer func() { reqs <- req; fasthttp.ReleaseResponse(resp) }()
		h.prepare(req, "POST", "/v1/datasets/ingest/ingest", "application/x-ndjson", bodies[i%len(bodies)])
		if err := h.client.Do(req, resp); err != nil {
			return err
		}
		return checkIngest(resp.StatusCode(), resp.Body(), events)
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	reportIngest(b, events, avgLen(bodies), processCPU()-cpu)
}

// reportIngest adds events/s and the throughput per CPU-second (MB of
// NDJSON per second of process CPU, client included: what one dedicated
// core would sustain, whatever else runs on the machine).
func reportIngest(b *testing.B, events int, bodyLen int64, cpu time.Duration) {
	b.ReportMetric(float64(b.N*events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(int64(b.N)*bodyLen)/1e6/cpu.Seconds(), "MB/cpu-s")
}
