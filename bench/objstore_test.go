package bench

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/seaweedtest"
	"github.com/aplite/aplite/objstore"
	"github.com/klauspost/compress/zstd"
)

// objFixture is the same events stored twice: blocks on local disk, and
// blocks in a SeaweedFS bucket (WAL local) as `serve -storage s3://...`
// keeps them.
type objFixture struct {
	n                     int
	dir                   string
	local                 *store.DB
	bucket                *objstore.S3
	localIngest, s3Ingest time.Duration
	bytes                 int64 // NDJSON ingested
}

// BenchmarkObjectStorage runs the seven reference queries with the
// decoded-column and result caches off, so each query reads and decodes
// its columns from storage:
//   - local: memory-mapped block files (the single node);
//   - s3-warm: a query node whose memory and disk caches already hold the
//     ranges (after one run);
//   - s3-cold: a query node started with empty caches for every query.
//
// It reports GET requests and bytes fetched per query and the ingest rate
// with uploads against local blocks. Needs APLITE_WEED (see
// internal/seaweedtest); 10M events with APLITE_BENCH_10M=1.
func BenchmarkObjectStorage(b *testing.B) {
	endpoint := seaweedtest.Start(b)
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			f := buildObjFixture(b, endpoint, n)
			defer f.close()
			b.Run("ingest", func(b *testing.B) {
				for b.Loop() {
				}
				b.ReportMetric(float64(f.n)/f.localIngest.Seconds(), "local-events/s")
				b.ReportMetric(float64(f.n)/f.s3Ingest.Seconds(), "s3-events/s")
				b.ReportMetric(f.localIngest.Seconds()/f.s3Ingest.Seconds(), "s3/local-rate")
			})
			for _, q := range benchQueries {
				benchObjQuery(b, f, q)
			}
		})
	}
}

func benchObjQuery(b *testing.B, f *objFixture, q benchQuery) {
	req := core.Request{APL: q.apl(), DisableCache: true, NoColumnCache: true}
	var localMs float64
	b.Run("local/"+q.id, func(b *testing.B) {
		e := core.NewEngine(core.StoreCatalog(f.local))
		localMs = timeQueries(b, f, func() *core.Engine { return e })
	})
	b.Run("s3-warm/"+q.id, func(b *testing.B) {
		db := f.queryNode(b)
		defer db.Close()
		e := core.NewEngine(core.StoreCatalog(db))
		r := req
		if _, err := e.Query(context.Background(), &r); err != nil { // fills the caches
			b.Fatal(err)
		}
		ms := timeQueries(b, f, func() *core.Engine { return e })
		b.ReportMetric(ms/localMs, "x-local")
	})
	b.Run("s3-cold/"+q.id, func(b *testing.B) {
		var dbs []*store.DB
		defer func() {
			for _, db := range dbs {
				db.Close()
			}
		}()
		ms := timeQueries(b, f, func() *core.Engine {
			db := f.queryNode(b) // empty memory and disk caches
			dbs = append(dbs, db)
			return core.NewEngine(core.StoreCatalog(db))
		})
		b.ReportMetric(ms/localMs, "x-local")
	})
}

// timeQueries runs the query b.N times on the engine fresh returns (made
// untimed before each run) and reports the median, CPU time, rows/s and
// the bucket's GETs and bytes per query; it returns the median in ms.
func timeQueries(b *testing.B, f *objFixture, fresh func() *core.Engine) float64 {
	q := b.Name()[len(b.Name())-2:]
	var apl string
	for _, bq := range benchQueries {
		if bq.id == q {
			apl = bq.apl()
		}
	}
	st := f.bucket.Stats()
	var lat []time.Duration
	var gets, bytes int64
	b.ReportAllocs()
	cpu := processCPU()
	var setup time.Duration
	for b.Loop() {
		t0 := time.Now()
		b.StopTimer()
		e := fresh()
		g0, by0 := st.Gets.Load(), st.GetBytes.Load()
		b.StartTimer()
		setup += time.Since(t0)
		began := time.Now()
		req := core.Request{APL: apl, DisableCache: true, NoColumnCache: true}
		if _, err := e.Query(context.Background(), &req); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(began))
		gets += st.Gets.Load() - g0
		bytes += st.GetBytes.Load() - by0
	}
	_ = setup
	slices.Sort(lat)
	med := float64(lat[len(lat)/2].Microseconds()) / 1000
	runs := float64(len(lat))
	b.ReportMetric(med, "p50-ms")
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/runs, "cpu-ms/op")
	b.ReportMetric(float64(f.n)/(med/1000), "rows/s")
	b.ReportMetric(float64(gets)/runs, "GETs/op")
	b.ReportMetric(float64(bytes)/runs/1e6, "MB-fetched/op")
	b.SetBytes(f.bytes)
	return med
}

// queryNode opens the bucket as a query node with empty caches.
func (f *objFixture) queryNode(b *testing.B) *store.DB {
	dir, err := os.MkdirTemp(f.dir, "cache-")
	if err != nil {
		b.Fatal(err)
	}
	disk, err := objstore.OpenDisk(dir, 20<<30)
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.OpenRemote(store.Options{Objects: objstore.NewCached(f.bucket, 1<<30, disk, f.bucket.Stats()), Refresh: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func (f *objFixture) close() {
	f.local.Close()
	os.RemoveAll(f.dir)
}

// buildObjFixture ingests the same generated events into a local store
// and into one on the bucket, timing each (appends with fsync, the final
// flush and, on the bucket, the uploads and catalog versions), then lets
// idle compaction settle both.
func buildObjFixture(b *testing.B, endpoint string, n int) *objFixture {
	dir, err := os.MkdirTemp("", "aplite-bench-obj-")
	if err != nil {
		b.Fatal(err)
	}
	f := &objFixture{n: n, dir: dir}
	cfg, _ := objstore.ParseURL("s3://" + seaweedtest.Bucket + "/bench-" + filepath.Base(dir))
	cfg.Endpoint, cfg.AccessKey, cfg.SecretKey, cfg.Region = endpoint, "bench", "bench", "us-east-1"
	if f.bucket, err = objstore.NewS3(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	opts := store.Options{CompactInterval: time.Second}
	if f.local, err = store.Open(filepath.Join(dir, "local"), opts); err != nil {
		b.Fatal(err)
	}
	// The ingest node's bucket is cached as `serve -storage` caches it: a
	// block it uploads enters its disk cache, so compaction reads it there
	// instead of fetching it back (the raw bucket measured 0.55-0.88x
	// local ingest).
	disk, err := objstore.OpenDisk(filepath.Join(dir, "ingest-cache"), 20<<30)
	if err != nil {
		b.Fatal(err)
	}
	s3opts := opts
	s3opts.Objects = objstore.NewCached(f.bucket, 64<<20, disk, f.bucket.Stats())
	ingestDB, err := store.Open(filepath.Join(dir, "ingest"), s3opts)
	if err != nil {
		b.Fatal(err)
	}
	defer ingestDB.Close()
	bodies := make([][]byte, 0, n/fixtureChunk+1)
	g := newGen(1, n) // benchShape: Real unless APLITE_BENCH_SHAPE says otherwise
	for done := 0; done < n; done += fixtureChunk {
		k := min(fixtureChunk, n-done)
		body := g.AppendNDJSON(make([]byte, 0, k*400), k)
		bodies = append(bodies, body)
		f.bytes += int64(len(body))
	}
	// Each ingest runs alone: the local one's compaction settles before
	// the bucket's starts, or the bucket's run shared the two cores with
	// it (and measured 0.55-0.83x local).
	f.localIngest = ingestAll(b, f.local, bodies)
	settle(b, f.local)
	f.s3Ingest = ingestAll(b, ingestDB, bodies)
	settle(b, ingestDB)
	return f
}

// ingestAll decodes and appends every body to a new dataset and flushes.
func ingestAll(b testing.TB, db *store.DB, bodies [][]byte) time.Duration {
	ds, err := db.Create(queryDataset)
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	if stop := profileWindow(b, os.Getenv("APLITE_INGEST_PROFILE")); stop != nil {
		defer stop()
	}
	for _, body := range bodies {
		now := time.Now().UnixNano()
		rb := store.NewRowsBuilder()
		if _, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, rb); err != nil {
			b.Fatal(err)
		}
		if _, err := ds.Append(rb.Finish(now)); err != nil {
			b.Fatal(err)
		}
	}
	flushed := time.Now()
	if err := ds.Flush(); err != nil {
		b.Fatal(err)
	}
	if testing.Verbose() {
		b.Logf("final flush %v of %v", time.Since(flushed).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	}
	return time.Since(began)
}

// settle waits until idle compaction has stopped changing the block count:
// for 8 s, since full-size blocks wait for 3 s of idleness and a merge of
// real-shaped blocks takes seconds more (4 s let it return before the
// first merge ended, with 149 blocks of 64K events left at 10M).
func settle(b testing.TB, db *store.DB) {
	ds, err := db.Get(queryDataset)
	if err != nil {
		b.Fatal(err)
	}
	last, stable := -1, 0
	for stable < 8 {
		time.Sleep(time.Second)
		if nb := ds.Info().NumBlocks; nb == last {
			stable++
		} else {
			last, stable = nb, 0
		}
	}
	b.Logf("%d blocks after compaction", last)
}

// BenchmarkIngestObjects is the ingest of BenchmarkObjectStorage, its
// modes alternating in one run over the same bodies: local blocks, the
// in-memory object store (the store's own cost of uploading: catalog
// versions, parts named by object), the same store behind S3's latency
// (farObjects: the store elsewhere) and, with APLITE_WEED set, a SeaweedFS
// bucket cached as `serve -storage` caches it. Besides the rate it
// reports this process's CPU per event, which leaves out SeaweedFS's: on
// this machine the object store shares the two cores with the ingest,
// in production it runs elsewhere. (Loopback traffic between SeaweedFS's
// own gateway, filer and volume server is still partly charged to this
// process: the kernel runs it in whatever syscall is on the core.)
//
// Knobs: APLITE_INGEST_MODES=bucket,local picks modes;
// APLITE_INGEST_PROFILE=FILE profiles the ingest window alone;
// APLITE_WEED_DIR=/dev/shm keeps SeaweedFS's volumes off this disk and
// APLITE_WEED_NICE=19 lowers its priority (internal/seaweedtest); -cpu 1
// leaves one core to the store.
func BenchmarkIngestObjects(b *testing.B) {
	modes := []string{"local", "mem", "far"}
	var weed seaweedtest.Server
	if os.Getenv("APLITE_WEED") != "" {
		weed = seaweedtest.StartServer(b)
		modes = append(modes, "bucket")
	}
	if m := os.Getenv("APLITE_INGEST_MODES"); m != "" { // e.g. "bucket" alone, to profile it
		modes = strings.Split(m, ",")
	}
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			var bodies [][]byte
			var size int64
			g := newGen(1, n) // benchShape: Real unless APLITE_BENCH_SHAPE says otherwise
			for done := 0; done < n; done += fixtureChunk {
				k := min(fixtureChunk, n-done)
				bodies = append(bodies, g.AppendNDJSON(make([]byte, 0, k*400), k))
				size += int64(len(bodies[len(bodies)-1]))
			}
			rates, cpus := map[string][]float64{}, map[string][]float64{}
			b.ResetTimer()
			for i := range len(modes) * b.N {
				mode := modes[i%len(modes)]
				b.StopTimer()
				db, stats, mem := openIngestMode(b, mode, weed.Endpoint)
				b.StartTimer()
				cpu0, weed0 := processCPU(), weedCPU(weed)
				took := ingestAll(b, db, bodies)
				cpu, weedUsed := processCPU()-cpu0, weedCPU(weed)-weed0
				b.StopTimer()
				rates[mode] = append(rates[mode], float64(n)/took.Seconds())
				cpus[mode] = append(cpus[mode], float64(cpu.Nanoseconds())/float64(n))
				if stats != nil {
					b.Logf("%s: %.0f events/s, %.0f ns CPU/event here and %.0f in SeaweedFS, %d PUTs, %.1f MB put",
						mode, rates[mode][len(rates[mode])-1], cpus[mode][len(cpus[mode])-1],
						float64(weedUsed.Nanoseconds())/float64(n), stats.Puts.Load(), float64(stats.PutBytes.Load())/1e6)
				}
				settle(b, db)
				if mem != nil {
					logCatalog(b, mem)
				}
				db.Close()
			}
			// An op is one ingest in each mode, so MB/s is their mean.
			b.SetBytes(size * int64(len(modes)))
			b.ReportAllocs()
			for _, mode := range modes {
				b.ReportMetric(slices.Max(rates[mode]), mode+"-events/s")
				b.ReportMetric(slices.Min(cpus[mode]), mode+"-cpu-ns/event")
				if mode != "local" && len(rates["local"]) > 0 {
					local := slices.Max(rates["local"])
					b.ReportMetric(slices.Max(rates[mode])/local, mode+"/local-rate")
					b.ReportMetric(slices.Min(cpus[mode])/slices.Min(cpus["local"]), mode+"/local-cpu")
				}
			}
		})
	}
}

// profileWindow starts a CPU profile into path ("" for none) and returns
// the function that ends it: a profile of the ingest alone, without the
// generator and the compaction that -cpuprofile would mix in.
func profileWindow(b testing.TB, path string) func() {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// weedCPU is the SeaweedFS server's CPU time so far (0 when unknown).
func weedCPU(s seaweedtest.Server) time.Duration {
	if s.Pid == 0 {
		return 0
	}
	d, _ := pidCPU(s.Pid)
	return d
}

// cachedLikeServe layers the memory and disk caches `serve -storage`
// puts before the bucket over inner, the disk cache under dir.
func cachedLikeServe(b *testing.B, dir string, inner store.ObjectStore, stats *objstore.Stats) store.ObjectStore {
	disk, err := objstore.OpenDisk(filepath.Join(dir, "cache"), 20<<30)
	if err != nil {
		b.Fatal(err)
	}
	return objstore.NewCached(inner, 64<<20, disk, stats)
}

// openIngestMode opens an empty store for one mode of
// BenchmarkIngestObjects; stats counts the bucket's requests.
func openIngestMode(b *testing.B, mode, endpoint string) (*store.DB, *objstore.Stats, *store.MemObjects) {
	dir := b.TempDir()
	opts := store.Options{CompactInterval: time.Second, Logf: b.Logf}
	var stats *objstore.Stats
	var mem *store.MemObjects
	switch mode {
	case "mem":
		mem = store.NewMemObjects()
		opts.Objects = mem
	case "far": // cached as the bucket is, or compaction waits out a round trip per column
		opts.Objects = cachedLikeServe(b, dir, newFarObjects(), nil)
	case "bucket":
		cfg, _ := objstore.ParseURL("s3://" + seaweedtest.Bucket + "/ingest-" + filepath.Base(dir))
		cfg.Endpoint, cfg.AccessKey, cfg.SecretKey, cfg.Region = endpoint, "bench", "bench", "us-east-1"
		bucket, err := objstore.NewS3(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		stats = bucket.Stats()
		opts.Objects = cachedLikeServe(b, dir, bucket, stats)
	}
	db, err := store.Open(filepath.Join(dir, "data"), opts)
	if err != nil {
		b.Fatal(err)
	}
	return db, stats, mem
}

// logCatalog logs the size of the catalog's versions after an ingest and
// its compaction: the newest, the largest full version (checkpoint), as
// stored and as JSON, and the largest delta, so OBJECTS.md's and
// SCALING.md's sizes are measured.
func logCatalog(b *testing.B, mem *store.MemObjects) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer dec.Close()
	var newest, full, fullJSON, delta int
	var newestKey string
	for _, k := range mem.Keys() {
		if !strings.Contains(k, "/catalog/") {
			continue
		}
		stored, err := mem.Get(context.Background(), k)
		if err != nil {
			b.Fatal(err)
		}
		js := stored
		if len(stored) >= 4 && string(stored[:4]) == "\x28\xb5\x2f\xfd" {
			if js, err = dec.DecodeAll(stored, nil); err != nil {
				b.Fatal(err)
			}
		}
		if strings.Contains(string(js[:min(len(js), 64)]), `"kind":"full"`) {
			if len(stored) > full {
				full, fullJSON = len(stored), len(js)
			}
		} else {
			delta = max(delta, len(stored))
		}
		if k > newestKey {
			newestKey, newest = k, len(stored)
		}
	}
	b.Logf("catalog, bytes stored: newest version %d (%s), largest full %d (JSON %d), largest delta %d",
		newest, path.Base(newestKey), full, fullJSON, delta)
}
