package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
)

// hungNode is a node that accepts connections and never answers, as a
// SIGSTOPped process does: the kernel completes the handshake and keeps
// the bytes, nobody reads them.
func hungNode(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// partialAnswer is the part of a tabular answer these tests read.
type partialAnswer struct {
	Status struct {
		IsPartial bool `json:"isPartial"`
		Messages  []struct {
			Code string `json:"code"`
			Msg  string `json:"msg"`
		} `json:"messages"`
	} `json:"status"`
	Tables []struct {
		Columns [][]any `json:"columns"`
	} `json:"tables"`
}

// A query node whose ingest node hangs answers within the per-fragment
// timeout, with the events it holds, marked partial and naming the node
// and what is missing; /metrics counts it. Both ways a query reaches the
// ingest node are covered: the rest fragment of a count, and a join,
// which is sent on whole.
func TestHungIngestNodeCostsOneFragmentTimeout(t *testing.T) {
	ingest := hungNode(t)
	const timeout = 300 * time.Millisecond
	ts := newTestServerConfig(t, Config{Ingest: ingest, ClusterSecret: "s", Advertise: "127.0.0.1:1", FragmentTimeout: timeout, QueryTimeout: 8 * time.Second})
	ts.createDataset("logs")
	ts.ingestNDJSON("logs", `{"a":1}`+"\n"+`{"a":2}`+"\n"+`{"a":3}`+"\n")
	for i, q := range []string{"['logs'] | count", "['logs'] | join kind=inner (['logs']) on a | count"} {
		start := time.Now()
		var res partialAnswer
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular&nocache=true", body: map[string]any{"apl": q}}, 200).json(t, &res)
		if took := time.Since(start); took > timeout+3*time.Second {
			t.Errorf("%s: answered after %s with a %s fragment timeout", q, took, timeout)
		}
		if !res.Status.IsPartial || len(res.Tables) == 0 || res.Tables[0].Columns[0][0] != float64(3) {
			t.Errorf("%s: partial %v, tables %v; want 3 rows, partial", q, res.Status.IsPartial, res.Tables)
		}
		found := false
		for _, m := range res.Status.Messages {
			found = found || m.Code == "apl_partialresult_unflushed" && strings.Contains(m.Msg, ingest) &&
				strings.Contains(m.Msg, "did not answer within 300ms") && strings.Contains(m.Msg, "not flushed")
		}
		if !found {
			t.Errorf("%s: no message naming the ingest node and its timeout: %+v", q, res.Status.Messages)
		}
		metrics := string(ts.do(req{method: "GET", path: "/metrics"}).body)
		if want := "aplite_queries_partial_total " + string(rune('1'+i)); !strings.Contains(metrics, want) {
			t.Errorf("%s: /metrics lacks %q", q, want)
		}
	}
}

// A fragment sent on a kept-alive connection to a node that has since
// stopped ends when its context does: the connection is open and
// silent, so nothing else would end it.
func TestFragmentOnKeptAliveConnectionToHungNode(t *testing.T) {
	var mu sync.Mutex
	conns, served := 0, 0
	stopped := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		first := served == 1
		mu.Unlock()
		if !first {
			<-stopped // the node is stopped from its second fragment on
		}
		w.Write([]byte("state"))
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.Start()
	defer srv.Close()
	defer close(stopped) // before Close, which waits for the handler
	s := &Server{cfg: Config{ClusterSecret: "s"}}
	if _, err := s.sendFragment(context.Background(), srv.URL, "org", &db.Fragment{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.sendFragment(ctx, srv.URL, "org", &db.Fragment{})
	if took := time.Since(start); err == nil || !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
		t.Errorf("fragment to a hung node: %v after %s", err, took)
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != 1 || served != 2 {
		t.Errorf("%d connections for %d fragments: the second did not reuse the first's", conns, served)
	}
}
