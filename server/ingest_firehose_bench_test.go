package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// BenchmarkFirehoseVsNDJSON sends the same 10 000 generated access-log
// events over loopback TCP as one plain NDJSON body to /v1/ingest/{id}
// and as one Firehose delivery (one base64 record per event) to its
// /firehose door, so the door's cost (envelope, base64, the rebuilt
// NDJSON, a body a third larger) reads directly off events/s. SetBytes is
// the events' NDJSON size in both, so MB/s compare too.
//
// Each run has a server and store of its own, shut down before the next
// starts, and the two alternate: the store seals and compacts blocks in
// the background, and a run sharing a store would pay for the other's.
func BenchmarkFirehoseVsNDJSON(b *testing.B) {
	firehoseBenchDoors(b, firehoseBenchHTTP)
}

// BenchmarkFirehoseVsNDJSONInProcess is the same comparison without the
// network: each request goes straight to the server's handler, so the
// figure is the server's own work (the loopback transfer of a body a
// third larger, and the client, are left out).
func BenchmarkFirehoseVsNDJSONInProcess(b *testing.B) {
	firehoseBenchDoors(b, firehoseBenchInProcess)
}

// firehoseBenchDoors runs post for each door on the same events, alternating.
func firehoseBenchDoors(b *testing.B, post func(b *testing.B, path string, body []byte, events int, size int64, headers map[string]string)) {
	events := gen.NDJSON(1, 10000)
	lines := bytes.SplitAfter(bytes.TrimSpace(events), []byte("\n"))
	recs := make([]map[string]string, len(lines))
	for i, l := range lines {
		recs[i] = map[string]string{"data": base64.StdEncoding.EncodeToString(l)}
	}
	delivery, err := json.Marshal(map[string]any{"requestId": "bench", "timestamp": time.Now().UnixMilli(), "records": recs})
	if err != nil {
		b.Fatal(err)
	}
	ndjson := func(b *testing.B) {
		post(b, "/v1/ingest/bench", events, len(lines), int64(len(events)), map[string]string{"Authorization": "Bearer " + firehoseBenchToken,
			"X-Axiom-Org-Id": "default", "Content-Type": "application/x-ndjson"})
	}
	firehose := func(b *testing.B) {
		post(b, "/v1/ingest/bench/firehose", delivery, len(lines), int64(len(events)), map[string]string{firehoseKeyHeader: firehoseBenchToken,
			"X-Axiom-Org-Id": "default", "Content-Type": "application/json", firehoseRequestIDHeader: "bench"})
	}
	for i := range firehoseBenchRounds {
		if i%2 == 0 {
			b.Run("ndjson", ndjson)
			b.Run("firehose", firehose)
		} else {
			b.Run("firehose", firehose)
			b.Run("ndjson", ndjson)
		}
	}
}

const firehoseBenchToken = "xapt-bench-token-0001"

// firehoseBenchServer is a fresh server on an in-memory store with dataset bench.
func firehoseBenchServer(b *testing.B) *Server {
	s, err := New(Config{DataDir: b.TempDir(), Token: firehoseBenchToken, Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.db.Create("bench"); err != nil {
		b.Fatal(err)
	}
	return s
}

// firehoseBenchReport adds events/s and the process's CPU time per request: the
// machine may be shared, and CPU time (server, client and the store's
// background work) is steadier than wall time.
func firehoseBenchReport(b *testing.B, events int, cpu0 int64) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(firehoseBenchCPU(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// firehoseBenchInProcess posts body to path through the handler of a fresh
// server, without a connection.
func firehoseBenchInProcess(b *testing.B, path string, body []byte, events int, size int64, headers map[string]string) {
	s := firehoseBenchServer(b)
	defer s.Shutdown(b.Context())
	h := s.Handler()
	var ctx fasthttp.RequestCtx
	ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, nil)
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := firehoseBenchCPU(b)
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(path)
		ctx.Request.Header.SetMethod("POST")
		for k, v := range headers {
			ctx.Request.Header.Set(k, v)
		}
		ctx.Request.SetBodyRaw(body)
		h(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("%s: %d %s", path, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	firehoseBenchReport(b, events, cpu0)
}

// firehoseBenchRounds is how many times each benchmark runs each door.
const firehoseBenchRounds = 6

// firehoseBenchHTTP posts body to path over loopback TCP on a fresh server;
// body holds events events, size bytes of them as NDJSON.
func firehoseBenchHTTP(b *testing.B, path string, body []byte, events int, size int64, headers map[string]string) {
	s := firehoseBenchServer(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(b.Context())
	url := "http://" + ln.Addr().String() + path
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(q)
	defer fasthttp.ReleaseResponse(r)
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := firehoseBenchCPU(b)
	for b.Loop() {
		q.Reset()
		q.SetRequestURI(url)
		q.Header.SetMethod("POST")
		for k, v := range headers {
			q.Header.Set(k, v)
		}
		q.SetBodyRaw(body)
		if err := c.Do(q, r); err != nil || r.StatusCode() != 200 {
			b.Fatalf("%s: %v %d %s", url, err, r.StatusCode(), r.Body())
		}
	}
	firehoseBenchReport(b, events, cpu0)
}

// firehoseBenchCPU is the process's user and system CPU time in ns.
func firehoseBenchCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
