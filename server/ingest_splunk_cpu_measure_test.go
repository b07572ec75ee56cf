//go:build cpumeasure && linux

package server

import (
	"bytes"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// TestHECIngestCPUCost is BenchmarkHECIngest in CPU time: the same 10 000
// events posted as NDJSON to /v1/ingest/{id} and as HEC envelopes to
// /services/collector/event, over loopback TCP into an in-memory store,
// the two alternated round by round so a busy machine weighs on both
// alike. CPU is the whole process's (client, server, GC):
//
//	go test -tags cpumeasure -run HECIngestCPUCost -v ./server/
func TestHECIngestCPUCost(t *testing.T) {
	runtime.GOMAXPROCS(1)
	const events = 10000
	nd := gen.NDJSON(1, events)
	hec := hecEnvelopes(nd)
	s, err := New(Config{DataDir: t.TempDir(), Token: "xapt-bench-token-0001", Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(t.Context())
	if _, err := s.db.Create("bench"); err != nil {
		t.Fatal(err)
	}
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	base := "http://" + ln.Addr().String()
	ways := []struct {
		name, path, auth, ct string
		body                 []byte
	}{
		{"ndjson", "/v1/ingest/bench", "Bearer xapt-bench-token-0001", "application/x-ndjson", nd},
		{"hec", "/services/collector/event?index=bench", "Splunk xapt-bench-token-0001", "application/json", hec},
	}
	post := func(i int) {
		q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(q)
		defer fasthttp.ReleaseResponse(r)
		w := ways[i]
		q.SetRequestURI(base + w.path)
		q.Header.SetMethod("POST")
		q.Header.Set("Authorization", w.auth)
		q.Header.Set("X-Axiom-Org-Id", "default")
		q.Header.SetContentType(w.ct)
		q.SetBodyRaw(w.body)
		if err := c.Do(q, r); err != nil || r.StatusCode() != 200 {
			t.Fatalf("%s: %v %d %s", w.name, err, r.StatusCode(), r.Body())
		}
	}
	post(0)
	post(1)
	var cpu, wall [2]time.Duration
	const rounds, per = 30, 2
	for range rounds {
		for i := range ways {
			c0, w0 := hecCPU(), time.Now()
			for range per {
				post(i)
			}
			cpu[i] += hecCPU() - c0
			wall[i] += time.Since(w0)
		}
	}
	n := float64(rounds * per * events)
	for i, w := range ways {
		t.Logf("%-6s %8.0f events/cpu-s %8.0f events/s (wall)", w.name, n/cpu[i].Seconds(), n/wall[i].Seconds())
	}
	t.Logf("hec costs %+.1f%% CPU over ndjson", float64(cpu[1])/float64(cpu[0])*100-100)
}
