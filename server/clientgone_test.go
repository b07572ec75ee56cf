//go:build linux

package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
)

// A query whose client hangs up stops within a poll or two, counted on
// /metrics, instead of running to its deadline for nobody; a query whose
// client waits is answered as before. Needs a real TCP connection (the
// in-memory listener of the other tests cannot be peeked at).
func TestQueryStopsWhenClientHangsUp(t *testing.T) {
	s, err := New(Config{DataDir: t.TempDir(), Token: "xapt-test-admin-token-0001", Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true}), QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
	}()
	send := func(apl string) net.Conn {
		body, _ := json.Marshal(map[string]string{"apl": apl})
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /v1/datasets/_apl?format=tabular HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
			"X-Axiom-Org-Id: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", s.Token(), s.OrgID(), len(body), body)
		return conn
	}
	// Several seconds of hashing: far longer than the client waits.
	slow := `print x = range(1, 1000000) | mv-expand x
		| extend h = hash_sha256(hash_sha256(hash_sha256(hash_sha256(hash_sha256(strcat(tostring(x), "a"))))))
		| summarize dcount(h)`
	conn := send(slow)
	time.Sleep(300 * time.Millisecond)
	began := time.Now()
	conn.Close()
	for s.metrics.queriesAbandoned.Load() == 0 {
		if time.Since(began) > 10*time.Second {
			t.Fatal("the query went on 10 s after its client hung up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("stopped %v after the client hung up", time.Since(began).Round(time.Millisecond))

	conn = send("print x = 1")
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a client that waits: %v %v", resp, err)
	}
	if n := s.metrics.queriesAbandoned.Load(); n != 1 {
		t.Errorf("%d queries counted as abandoned, want 1", n)
	}
}
