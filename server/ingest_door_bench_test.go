//go:build unix

package server

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

// The protocol doors (Firehose, Elasticsearch bulk, Splunk HEC) may cost
// at most 15% more CPU per event than plain NDJSON of the same events
// (issue 30). benchDoors is the one way their benchmarks measure that:
//
//	go test -run '^$' -bench 'IngestElasticHTTP$|HECIngest$|FirehoseVsNDJSON$' -benchtime 30x -count 3 -v ./server/
//
// Each door runs doorBenchRounds times on the same events, the order
// rotating each round (no door always runs first) and each run on a
// fresh server and store, shut down before the next starts: the store
// seals and compacts blocks in the background, and a run sharing a store
// would pay for the blocks the previous one left (+45% that was not the
// door's). CPU time is the process's (client, server, the store's
// background work and GC): on a shared machine it holds still where wall
// time swings with the neighbours. The parent benchmark logs (-v) each
// door's CPU per event against the first door's over all its rounds.

// benchDoor is one way of sending the events: a path, its headers and body.
type benchDoor struct {
	name, path string
	headers    map[string]string
	body       []byte
}

// benchPost posts door's body on a fresh server b.N times and returns the
// process CPU time the loop took.
type benchPost func(b *testing.B, door benchDoor) time.Duration

// doorBenchToken is the token of the benchmarks' servers.
const doorBenchToken = "xapt-bench-token-0001"

// doorBenchRounds is how many times a benchmark runs each door.
const doorBenchRounds = 4

// benchDoors runs doors (the baseline first) over events events whose
// NDJSON is size bytes, and logs each door's CPU per event over the
// baseline's.
func benchDoors(b *testing.B, events int, size int64, post benchPost, doors ...benchDoor) {
	cpu := make([]time.Duration, len(doors))
	runs := make([]int, len(doors))
	for round := range doorBenchRounds {
		for k := range doors {
			i := (round + k) % len(doors)
			d := doors[i]
			b.Run(d.name, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				used := post(b, d)
				cpu[i] += used
				runs[i] += b.N
				b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(used.Seconds()*1e3/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(events)*float64(b.N)/used.Seconds(), "events/cpu-s")
			})
		}
	}
	if runs[0] == 0 || cpu[0] == 0 {
		return
	}
	base := cpu[0].Seconds() / float64(runs[0])
	var sum []string
	for i, d := range doors[1:] {
		if runs[i+1] > 0 {
			per := cpu[i+1].Seconds() / float64(runs[i+1])
			sum = append(sum, fmt.Sprintf("%s %+.1f%%", d.name, (per/base-1)*100))
		}
	}
	b.Logf("CPU per event over %s (%d rounds): %s", doors[0].name, doorBenchRounds, strings.Join(sum, ", "))
}

// doorBenchServer is a fresh server on an in-memory store with dataset bench.
func doorBenchServer(b *testing.B) *Server {
	s, err := New(Config{DataDir: b.TempDir(), Token: doorBenchToken, Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.db.Create("bench"); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchHTTP posts over loopback TCP, one request at a time.
func benchHTTP(b *testing.B, d benchDoor) time.Duration {
	s := doorBenchServer(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(b.Context())
	url := "http://" + ln.Addr().String() + d.path
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(q)
	defer fasthttp.ReleaseResponse(r)
	cpu0 := processCPU(b)
	for b.Loop() {
		q.Reset()
		q.SetRequestURI(url)
		q.Header.SetMethod("POST")
		for k, v := range d.headers {
			q.Header.Set(k, v)
		}
		q.SetBodyRaw(d.body)
		if err := c.Do(q, r); err != nil {
			b.Fatalf("%s: %v", d.name, err)
		}
		benchCheck(b, d, r.StatusCode(), r.Body())
	}
	return processCPU(b) - cpu0
}

// benchInProcess hands each request to the server's handler without a
// connection: the figure is the server's own work, without the client
// and the loopback transfer of a larger body.
func benchInProcess(b *testing.B, d benchDoor) time.Duration {
	s := doorBenchServer(b)
	defer s.Shutdown(b.Context())
	h := s.Handler()
	var ctx fasthttp.RequestCtx
	ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, nil)
	cpu0 := processCPU(b)
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(d.path)
		ctx.Request.Header.SetMethod("POST")
		for k, v := range d.headers {
			ctx.Request.Header.Set(k, v)
		}
		ctx.Request.SetBodyRaw(d.body)
		h(&ctx)
		benchCheck(b, d, ctx.Response.StatusCode(), ctx.Response.Body())
	}
	return processCPU(b) - cpu0
}

// benchCheck stops the benchmark on an answer that stored less than
// everything: a door measured while failing measures nothing.
func benchCheck(b *testing.B, d benchDoor, status int, body []byte) {
	if status != 200 || bytes.Contains(body, []byte(`"errors":true`)) || bytes.Contains(body, []byte(`"failed":`)) && !bytes.Contains(body, []byte(`"failed":0`)) {
		b.Fatalf("%s: %d %.300s", d.name, status, body)
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// doorHeaders are the headers of a request with the bench token, plus kv.
func doorHeaders(kv ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + doorBenchToken, "X-Axiom-Org-Id": "default"}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}
