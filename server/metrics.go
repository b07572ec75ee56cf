package server

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// histogram is a Prometheus histogram with fixed buckets and atomic
// counters, so observing costs no lock on the ingest path.
type histogram struct {
	bounds []float64 // seconds, ascending
	counts []atomic.Int64
	sumNs  atomic.Int64
	total  atomic.Int64
}

func newHistogram(bounds ...float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Int64, len(bounds))}
}

func (h *histogram) observe(d time.Duration) {
	sec := d.Seconds()
	i := sort.SearchFloat64s(h.bounds, sec)
	if i < len(h.counts) {
		h.counts[i].Add(1)
	}
	h.sumNs.Add(int64(d))
	h.total.Add(1)
}

func (h *histogram) write(b *bytes.Buffer, name, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum int64
	for i, le := range h.bounds {
		cum += h.counts[i].Load()
		fmt.Fprintf(b, "%s_bucket{le=\"%s\"} %d\n", name, strconv.FormatFloat(le, 'g', -1, 64), cum)
	}
	total := h.total.Load()
	fmt.Fprintf(b, "%s_bucket{le=\"+Inf\"} %d\n", name, total)
	fmt.Fprintf(b, "%s_sum %g\n%s_count %d\n", name, float64(h.sumNs.Load())/1e9, name, total)
}

var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// routeStats counts one route's responses by status class.
type routeStats struct {
	byClass [6]atomic.Int64 // index = status/100
}

// metrics holds every counter /metrics exposes.
type metrics struct {
	mu     sync.Mutex
	routes map[string]*routeStats

	ingestRequests atomic.Int64
	ingestEvents   atomic.Int64
	ingestFailed   atomic.Int64
	ingestNoSpace  atomic.Int64 // ingests refused 507: the disk was full
	ingestBytes    atomic.Int64
	ingestLatency  *histogram

	queries     atomic.Int64
	queryErrors atomic.Int64
	// queriesAbandoned counts queries stopped because their client hung up.
	queriesAbandoned atomic.Int64
	queryLatency     *histogram
	queryRowsRead    atomic.Int64
}

func newMetrics() *metrics {
	return &metrics{
		routes:        make(map[string]*routeStats),
		ingestLatency: newHistogram(latencyBuckets...),
		queryLatency:  newHistogram(latencyBuckets...),
	}
}

// route returns the counters of a named route; called at registration so
// the request path never takes the lock.
func (m *metrics) route(name string) *routeStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.routes[name]
	if r == nil {
		r = new(routeStats)
		m.routes[name] = r
	}
	return r
}

func (r *routeStats) count(status int) {
	c := status / 100
	if c < 0 || c >= len(r.byClass) {
		c = 0
	}
	r.byClass[c].Add(1)
}

// handleMetrics serves the Prometheus text exposition format.
func (s *Server) handleMetrics(ctx *fasthttp.RequestCtx) {
	m := s.metrics
	var b bytes.Buffer
	b.WriteString("# HELP aplite_http_requests_total HTTP requests by route and status class.\n# TYPE aplite_http_requests_total counter\n")
	m.mu.Lock()
	names := make([]string, 0, len(m.routes))
	for n := range m.routes {
		names = append(names, n)
	}
	m.mu.Unlock()
	sort.Strings(names)
	for _, n := range names {
		r := m.route(n)
		for c := 1; c < len(r.byClass); c++ {
			if v := r.byClass[c].Load(); v > 0 {
				fmt.Fprintf(&b, "aplite_http_requests_total{route=%q,code=\"%dxx\"} %d\n", n, c, v)
			}
		}
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	counter("aplite_ingest_requests_total", "Ingest requests answered 200.", m.ingestRequests.Load())
	counter("aplite_ingest_events_total", "Events ingested.", m.ingestEvents.Load())
	counter("aplite_ingest_failed_events_total", "Events rejected by ingest.", m.ingestFailed.Load())
	counter("aplite_ingest_disk_full_total", "Ingest requests refused (507) because the data directory's disk was full.", m.ingestNoSpace.Load())
	counter("aplite_ingest_bytes_total", "Decompressed ingest bytes processed.", m.ingestBytes.Load())
	m.ingestLatency.write(&b, "aplite_ingest_duration_seconds", "Ingest request latency.")
	damaged := 0
	for _, info := range s.db.Datasets() {
		damaged += len(info.Damaged)
	}
	fmt.Fprintf(&b, "# HELP aplite_store_damaged_blocks Blocks and WAL records set aside as corrupt, and blocks missing (see dataset info, aplite check).\n# TYPE aplite_store_damaged_blocks gauge\naplite_store_damaged_blocks %d\n", damaged)
	counter("aplite_fragments_sent_total", "Query fragments sent to other nodes.", s.cluster.sent.Load())
	counter("aplite_fragments_failed_total", "Query fragments another node failed (reassigned).", s.cluster.failed.Load())
	counter("aplite_fragments_timed_out_total", "Query fragments given up on because their node did not answer within -fragment-timeout.", s.cluster.timedOut.Load())
	counter("aplite_queries_partial_total", "Queries answered without the ingest node's unflushed events because it could not be asked in time (the answer is isPartial).", s.cluster.partial.Load())
	counter("aplite_fragments_served_total", "Query fragments run for other nodes.", s.cluster.served.Load())
	counter("aplite_queries_forwarded_total", "Queries sent on to the ingest node, to include its unflushed events.", s.cluster.forwarded.Load())
	s.writeMembers(&b)
	if s.cfg.ObjectStats != nil {
		st := s.cfg.ObjectStats()
		keys := make([]string, 0, len(st))
		for k := range st {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			counter("aplite_objstore_"+k+"_total", "Object storage: "+strings.ReplaceAll(k, "_", " ")+".", st[k])
		}
	}
	counter("aplite_queries_total", "APL and legacy queries run.", m.queries.Load())
	counter("aplite_query_errors_total", "Queries that failed.", m.queryErrors.Load())
	counter("aplite_queries_abandoned_total", "Queries stopped because their client closed the connection.", m.queriesAbandoned.Load())
	counter("aplite_query_rows_examined_total", "Rows examined by queries.", m.queryRowsRead.Load())
	m.queryLatency.write(&b, "aplite_query_duration_seconds", "Query latency.")
	fmt.Fprintf(&b, "# HELP aplite_uptime_seconds Seconds since the server started.\n# TYPE aplite_uptime_seconds gauge\naplite_uptime_seconds %d\n",
		int64(math.Round(time.Since(s.started).Seconds())))
	s.writeMemory(&b)
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetContentType("text/plain; version=0.0.4; charset=utf-8")
	ctx.SetBody(b.Bytes())
}
