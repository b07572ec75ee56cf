package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// Load test knobs (environment): APLITE_LOAD=1 runs it;
// APLITE_LOAD_DURATION (a Go duration, default 10s) bounds the mixed phase.
const (
	loadPreload        = 500_000
	loadIngestWorkers  = 2
	loadQueryWorkers   = 2
	loadDefaultRunTime = 10 * time.Second
)

// TestLoad drives a real server on loopback with concurrent ingest (1 MB
// NDJSON bodies) and the seven reference queries at once, after preloading
// 500k events, and prints requests/s and latency percentiles per kind.
// It fails on any error answer. Opt-in: it takes ~20 s of both cores.
func TestLoad(t *testing.T) {
	if os.Getenv("APLITE_LOAD") != "1" {
		t.Skip("set APLITE_LOAD=1 to run the load test")
	}
	runFor := loadDefaultRunTime
	if v := os.Getenv("APLITE_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("APLITE_LOAD_DURATION: %v", err)
		}
		runFor = d
	}
	dir, cleanup := tempDir(t, "aplite-load-")
	defer cleanup()
	h := startServer(t, dir, nil, loadIngestWorkers+loadQueryWorkers)
	defer h.stop(t)
	h.createDataset(t, queryDataset)

	began := time.Now()
	g := newGen(21, loadPreload)
	for done := 0; done < loadPreload; done += events4MB {
		k := min(events4MB, loadPreload-done)
		if err := h.ingest(queryDataset, g.AppendNDJSON(nil, k), k); err != nil {
			t.Fatalf("preload: %v", err)
		}
	}
	t.Logf("preloaded %d events in %v", loadPreload, time.Since(began).Round(time.Millisecond))

	rec := newLatencies()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	bodies := bodiesOf(events1MB, 64)
	for w := range loadIngestWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			loadWorker(h, stop, rec, func(i int) (string, *fasthttp.Request) {
				req := fasthttp.AcquireRequest()
				h.prepare(req, "POST", "/v1/datasets/"+queryDataset+"/ingest", "application/x-ndjson",
					bodies[(i*loadIngestWorkers+w)%len(bodies)])
				return "ingest", req
			}, func(code int, body []byte) error { return checkIngest(code, body, events1MB) })
		}()
	}
	for w := range loadQueryWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			loadWorker(h, stop, rec, func(i int) (string, *fasthttp.Request) {
				q := benchQueries[(i+w*3)%len(benchQueries)]
				body, _ := json.Marshal(map[string]string{"apl": q.apl()})
				req := fasthttp.AcquireRequest()
				h.prepare(req, "POST", "/v1/datasets/_apl?format=tabular", "application/json", body)
				return q.id, req
			}, func(code int, body []byte) error {
				if code != 200 {
					return fmt.Errorf("query answered %d: %.300s", code, body)
				}
				return nil
			})
		}()
	}
	time.Sleep(runFor)
	close(stop)
	wg.Wait()
	t.Logf("mixed load for %v, %d ingest and %d query clients:\n%s", runFor, loadIngestWorkers, loadQueryWorkers, rec.report(runFor))
	if n := rec.count("ingest"); n > 0 {
		t.Logf("ingest under load: %.1f MB/s, %.0f events/s", float64(int64(n)*avgLen(bodies))/1e6/runFor.Seconds(),
			float64(n*events1MB)/runFor.Seconds())
	}
	for _, err := range rec.errs {
		t.Error(err)
	}
}

// loadWorker sends requests until stop closes; next builds request i
// (and names its kind), check judges the answer.
func loadWorker(h *httpServer, stop <-chan struct{}, rec *latencies,
	next func(i int) (string, *fasthttp.Request), check func(code int, body []byte) error) {
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		kind, req := next(i)
		began := time.Now()
		err := h.client.Do(req, resp)
		d := time.Since(began)
		if err == nil {
			err = check(resp.StatusCode(), resp.Body())
		}
		fasthttp.ReleaseRequest(req)
		rec.add(kind, d, err)
	}
}

// latencies collects request durations per kind.
type latencies struct {
	mu   sync.Mutex
	by   map[string][]time.Duration
	errs []error
}

func newLatencies() *latencies { return &latencies{by: map[string][]time.Duration{}} }

func (l *latencies) add(kind string, d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if len(l.errs) < 10 {
			l.errs = append(l.errs, fmt.Errorf("%s: %w", kind, err))
		}
		return
	}
	l.by[kind] = append(l.by[kind], d)
}

func (l *latencies) count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.by[kind])
}

// report is a table of requests/s and latency percentiles per kind.
func (l *latencies) report(elapsed time.Duration) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var kinds []string
	for k := range l.by {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %8s %9s %10s %10s %10s\n", "kind", "requests", "req/s", "p50", "p99", "max")
	for _, k := range kinds {
		ds := l.by[k]
		slices.Sort(ds)
		fmt.Fprintf(&b, "%-8s %8d %9.1f %10v %10v %10v\n", k, len(ds), float64(len(ds))/elapsed.Seconds(),
			pct(ds, 50), pct(ds, 99), ds[len(ds)-1].Round(time.Microsecond))
	}
	if len(l.errs) > 0 {
		fmt.Fprintf(&b, "%d errors (first: %v)\n", len(l.errs), l.errs[0])
	}
	return b.String()
}

// pct is the nearest-rank percentile of sorted durations.
func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)].Round(time.Microsecond)
}
