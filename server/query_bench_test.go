package server

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/db"
)

// BenchmarkQueryHTTP measures a trivial APL query over loopback HTTP;
// BenchmarkQueryInProcess runs it on the engine directly. The difference
// is the HTTP layer's cost per query (auth, JSON in and out, routing).
func BenchmarkQueryHTTP(b *testing.B) {
	s, err := New(Config{DataDir: b.TempDir(), Token: "xapt-bench-token-0001", Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(b.Context())
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	url := "http://" + ln.Addr().String() + "/v1/datasets/_apl?format=tabular"
	body := []byte(`{"apl":"print x = 1"}`)
	q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.Reset()
		q.SetRequestURI(url)
		q.Header.SetMethod("POST")
		q.Header.Set("Authorization", "Bearer xapt-bench-token-0001")
		q.Header.Set("X-Axiom-Org-Id", "default")
		q.Header.SetContentType("application/json")
		q.SetBodyRaw(body)
		if err := c.Do(q, r); err != nil || r.StatusCode() != 200 {
			b.Fatalf("query: %v %d %s", err, r.StatusCode(), r.Body())
		}
	}
}

func BenchmarkQueryInProcess(b *testing.B) {
	e := db.OpenMemory(db.Options{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := e.Query(b.Context(), &core.Request{APL: "print x = 1"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := jsonAPI.Marshal(render.Tabular(res)); err != nil {
			b.Fatal(err)
		}
	}
}
