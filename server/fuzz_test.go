package server

import (
	"bytes"
	"testing"

	"github.com/valyala/fasthttp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/aplite/aplite/db"
)

// fuzzServer is one server for a whole fuzz run, called in process.
func fuzzServer(f *testing.F) *Server {
	s, err := New(Config{DataDir: f.TempDir(), Token: "xapt-fuzz-token-0001", Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true}), MaxBodyBytes: 8 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	return s
}

// serveFuzz sends one request and checks the server answered with a
// status, never a panic (the router's panic handler would answer 500).
func serveFuzz(t *testing.T, s *Server, path, ctype, encoding string, body []byte) int {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI(path)
	ctx.Request.Header.Set("Authorization", "Bearer xapt-fuzz-token-0001")
	ctx.Request.Header.Set("X-Axiom-Org-Id", "default")
	ctx.Request.Header.SetContentType(ctype)
	if encoding != "" {
		ctx.Request.Header.Set("Content-Encoding", encoding)
	}
	ctx.Request.SetBody(body)
	s.handler(&ctx)
	code := ctx.Response.StatusCode()
	if code >= 500 {
		t.Fatalf("%s %s (%d bytes): %d %s", path, ctype, len(body), code, ctx.Response.Body())
	}
	return code
}

var fuzzCTypes = []string{"application/x-protobuf", "application/json"}

// FuzzOTLP posts arbitrary bodies to the OTLP trace and log endpoints as
// protobuf or JSON: a bad body is a 4xx, never a panic or a 500.
func FuzzOTLP(f *testing.F) {
	td := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{
		TraceId: bytes.Repeat([]byte{1}, 16), SpanId: bytes.Repeat([]byte{2}, 8), Name: "GET /",
		StartTimeUnixNano: 1700000000000000000, EndTimeUnixNano: 1700000000100000000,
		Attributes: []*commonpb.KeyValue{{Key: "http.status", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 200}}}},
	}}}}}}}
	pb, _ := proto.Marshal(td)
	f.Add(uint8(0), uint8(0), pb)
	f.Add(uint8(0), uint8(1), []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102","name":"x","startTimeUnixNano":"1700000000000000000"}]}]}]}`))
	f.Add(uint8(1), uint8(1), []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1","body":{"stringValue":"hi"}}]}]}]}`))
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, path, ctype uint8, body []byte) {
		p := []string{"/v1/traces", "/v1/logs"}[path%2]
		serveFuzz(t, s, p, fuzzCTypes[ctype%2], "", body)
	})
}

// FuzzIngestBody posts arbitrary bodies, plain or claiming gzip or zstd,
// as JSON, NDJSON or CSV: every answer is a status, never a panic.
func FuzzIngestBody(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte(`[{"a":1},{"b":"x"}]`))
	f.Add(uint8(1), uint8(0), []byte("{\"a\":1}\n{\"a\":2.5}\n"))
	f.Add(uint8(2), uint8(0), []byte("a,b\n1,x\n"))
	f.Add(uint8(1), uint8(1), []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"))
	f.Add(uint8(1), uint8(2), []byte("\x28\xb5\x2f\xfd\x00\x58\x01\x00\x00"))
	s := fuzzServer(f)
	create := func() {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetRequestURI("/v2/datasets")
		ctx.Request.Header.Set("Authorization", "Bearer xapt-fuzz-token-0001")
		ctx.Request.Header.Set("X-Axiom-Org-Id", "default")
		ctx.Request.SetBody([]byte(`{"name":"fuzz"}`))
		s.handler(&ctx)
	}
	create()
	ctypes := []string{"application/json", "application/x-ndjson", "text/csv"}
	encodings := []string{"", "gzip", "zstd"}
	var runs int
	f.Fuzz(func(t *testing.T, ctype, enc uint8, body []byte) {
		// A dataset that kept every input of a long run would grow to
		// millions of events and thousands of fields, until the worker ran
		// out of memory (twice reported as a hang while minimizing): start
		// it afresh now and then.
		if runs++; runs%1000 == 0 {
			if err := s.db.Delete("fuzz"); err != nil {
				t.Fatal(err)
			}
			create()
		}
		serveFuzz(t, s, "/v1/datasets/fuzz/ingest", ctypes[int(ctype)%3], encodings[int(enc)%3], body)
	})
}
