package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
)

// queryDataset is the dataset every query benchmark reads.
const queryDataset = "http-logs"

// fixture is a flushed dataset of generated events, served in process and
// over HTTP, with the answers computed independently of the engine.
type fixture struct {
	n     int
	dir   string
	db    *db.DB
	http  *httpServer
	want  *expected
	build time.Duration
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[int]*fixture{}
	fixtureErr = map[int]error{}
)

// dataset returns the process-wide fixture of n events, building it on
// first use (generation, NDJSON decode, durable appends and a flush).
func dataset(tb testing.TB, n int) *fixture {
	tb.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[n]; f != nil {
		return f
	}
	if err := fixtureErr[n]; err != nil {
		tb.Fatalf("dataset of %d events: %v", n, err)
	}
	f, err := buildFixture(tb, n)
	if err != nil {
		fixtureErr[n] = err
		tb.Fatalf("dataset of %d events: %v", n, err)
	}
	fixtures[n] = f
	return f
}

// closeFixtures stops every fixture's server and removes its files.
func closeFixtures() {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	for n, f := range fixtures {
		f.http.stop(nopTB{})
		os.RemoveAll(f.dir)
		delete(fixtures, n)
	}
}

// fixtureChunk is how many events go into one ingest batch (about 3.7 MB
// of NDJSON, a typical shipper batch).
const fixtureChunk = 10_000

func buildFixture(tb testing.TB, n int) (*fixture, error) {
	began := time.Now()
	dir, err := os.MkdirTemp("", "aplite-bench-query-")
	if err != nil {
		return nil, err
	}
	d, err := db.Open(filepath.Join(dir, "store"), db.Options{})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	f := &fixture{n: n, dir: dir, db: d, want: newExpected()}
	f.http = startServer(tb, filepath.Join(dir, "server"), d, 4)
	fail := func(err error) (*fixture, error) {
		f.http.stop(tb)
		os.RemoveAll(dir)
		return nil, err
	}
	f.http.createDataset(tb, queryDataset)
	ds, err := d.Dataset(queryDataset)
	if err != nil {
		return fail(err)
	}
	g := newGen(1, n)
	for done := 0; done < n; done += fixtureChunk {
		k := min(fixtureChunk, n-done)
		body := g.AppendNDJSON(make([]byte, 0, k*900), k)
		if err := f.want.addNDJSON(body); err != nil {
			return fail(err)
		}
		now := time.Now().UnixNano()
		b := store.NewRowsBuilder()
		res, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, b)
		if err != nil {
			return fail(err)
		}
		if res.Ingested != k || res.Failed != 0 {
			return fail(fmt.Errorf("decode took %d of %d events (%d failed: %v)", res.Ingested, k, res.Failed, res.Failures))
		}
		if _, err := ds.Append(b.Finish(now)); err != nil {
			return fail(err)
		}
	}
	if err := ds.Flush(); err != nil {
		return fail(err)
	}
	info := settled(ds, n)
	if info.NumEvents != int64(n) {
		return fail(fmt.Errorf("dataset holds %d events after ingesting %d", info.NumEvents, n))
	}
	f.build = time.Since(began)
	tb.Logf("built %d-event dataset in %v: %d blocks, %d bytes compressed", n, f.build.Round(time.Millisecond),
		info.NumBlocks, info.CompressedBytes)
	return f, nil
}

// settled waits until background compaction has merged the dataset's
// blocks into blocks of the merge size (1Mi rows), or their count has not
// changed for 20 s, so queries are timed on the blocks a user's queries
// read, with their term filters, and not while compaction competes for
// the cores and replaces parts under the column cache. A merge of a
// million wide events takes several seconds on two busy cores, so an
// unchanged count alone does not tell that it is over.
func settled(ds *store.Dataset, n int) store.Info {
	const mergeRows = 1 << 20 // store's maxMergeRows
	want := (n + mergeRows - 1) / mergeRows
	info := ds.Info()
	stable := time.Now()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		if info.NumBlocks <= want || time.Since(stable) >= 20*time.Second {
			return info
		}
		time.Sleep(250 * time.Millisecond)
		if cur := ds.Info(); cur.NumBlocks != info.NumBlocks {
			info, stable = cur, time.Now()
		}
	}
	return info
}

// nopTB stands in for a testing.TB after the tests have finished
// (TestMain's cleanup), where failures can only be printed.
type nopTB struct{ testing.TB }

func (nopTB) Helper()                   {}
func (nopTB) Errorf(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }

func TestMain(m *testing.M) {
	code := m.Run()
	closeFixtures()
	closeMixed()
	os.Exit(code)
}
