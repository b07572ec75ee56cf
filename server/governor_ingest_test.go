package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// ndjsonOf is n events of about 100 bytes each.
func ndjsonOf(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(`{"a":` + itoa(int64(i)) + `,"s":"` + strings.Repeat("x", 80) + `"}` + "\n")
	}
	return b.String()
}

// An ingest request reserves the memory its decoded body takes from the
// pool the queries share: while others hold the pool it waits, then
// gets 429 with Retry-After and a message that says why, storing
// nothing; a gzip body is reserved by what it decompresses to. Once the
// memory is back the same request is stored, and its reservation ends
// with it.
func TestIngestDrawsOnMemoryPool(t *testing.T) {
	ts := governedServer(t, 64<<20)
	ts.s.gov.ingestWait = 20 * time.Millisecond
	body := ndjsonOf(60000) // 6 MB: 17 MB decoded
	need := int64(len(body)) * ingestBytesPerByte >> 20
	hog, err := ts.s.gov.admit(t.Context(), 50<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []string{"", "gzip"} {
		r := ts.do(req{method: "POST", path: "/v1/datasets/m/ingest", body: body, contentType: "application/x-ndjson", encoding: enc})
		if r.status != 429 || r.header["Retry-After"] == "" ||
			!strings.Contains(string(r.body), fmt.Sprintf("the server is out of memory for ingest: running queries and ingest requests hold 50 MB of its 64 MB (-memory-budget) and this request needs %d MB to decode its body", need)) {
			t.Fatalf("ingest (%q) with the pool taken: %d %v %s", enc, r.status, r.header, r.body)
		}
	}
	if n := ts.count("m"); n != 2000 {
		t.Fatalf("a refused ingest stored events: %d rows, want 2000", n)
	}
	hog.release()
	ts.must(req{method: "POST", path: "/v1/datasets/m/ingest", body: body, contentType: "application/x-ndjson", encoding: "gzip"}, 200)
	if n := ts.count("m"); n != 62000 {
		t.Fatalf("after the memory came back: %d rows, want 62000", n)
	}
	if n := ts.s.gov.inUse(); n != 0 {
		t.Errorf("%d bytes still held after the ingest ended", n)
	}
}

// An ingest waiting for memory is stored as soon as a query gives it
// back, and the OTLP door reserves as /v1/ingest does.
func TestIngestWaitsForMemory(t *testing.T) {
	ts := governedServer(t, 64<<20)
	ts.s.gov.ingestWait = time.Minute
	hog, err := ts.s.gov.admit(t.Context(), 60<<20)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	waited := false
	ts.s.gov.waiting = func() { once.Do(func() { waited = true; go hog.release() }) }
	ts.must(req{method: "POST", path: "/v1/datasets/m/ingest", body: ndjsonOf(20000), contentType: "application/x-ndjson"}, 200)
	if !waited {
		t.Error("the ingest did not wait for the memory held")
	}
	if n := ts.count("m"); n != 22000 {
		t.Fatalf("%d rows, want 22000", n)
	}
	ts.s.gov.ingestWait = 20 * time.Millisecond
	hog, err = ts.s.gov.admit(t.Context(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer hog.release()
	r := ts.do(req{method: "POST", path: "/v1/logs", body: `{"resourceLogs":[]}`, contentType: "application/json",
		headers: map[string]string{"X-Axiom-Dataset": "m"}})
	if r.status != 429 || r.header["Retry-After"] == "" || !strings.Contains(string(r.body), "out of memory for ingest") {
		t.Fatalf("OTLP with the pool taken: %d %v %s", r.status, r.header, r.body)
	}
}

// Splunk HEC reserves as the other doors do, and a refusal is HEC's own
// "Server is busy" (code 9) with Retry-After, which HEC clients retry.
func TestHECDrawsOnMemoryPool(t *testing.T) {
	ts := governedServer(t, 64<<20)
	ts.s.gov.ingestWait = 20 * time.Millisecond
	ts.createDataset("logs")
	tok := "Splunk " + ts.newToken(ingestOn("logs"), nil).Token
	var b strings.Builder
	for i := 0; i < 60000; i++ {
		b.WriteString(`{"event":{"a":` + itoa(int64(i)) + `,"s":"` + strings.Repeat("x", 80) + `"}}`)
	}
	hog, err := ts.s.gov.admit(t.Context(), 50<<20)
	if err != nil {
		t.Fatal(err)
	}
	const ev = "/services/collector/event?index=logs"
	r := ts.hec(ev, tok, b.String())
	wantHEC(t, "HEC with the pool taken", r, 429, hecBusy, "out of memory for ingest")
	if r.header["Retry-After"] == "" {
		t.Errorf("no Retry-After: %v", r.header)
	}
	if n := ts.count("logs"); n != 0 {
		t.Fatalf("a refused HEC request stored %d events", n)
	}
	hog.release()
	wantHEC(t, "HEC with the memory back", ts.hec(ev, tok, b.String()), 200, 0, "")
	if n := ts.count("logs"); n != 60000 {
		t.Fatalf("%d events stored, want 60000", n)
	}
	if n := ts.s.gov.inUse(); n != 0 {
		t.Errorf("%d bytes still held after the HEC request ended", n)
	}
}
