package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// logBuf is a log destination the server's goroutines share.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *logBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// records decodes the JSON log lines written so far.
func (s *logBuf) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// find returns the record with msg whose request_id is id.
func findRecord(recs []map[string]any, msg, id string) map[string]any {
	for _, r := range recs {
		if r["msg"] == msg && r["request_id"] == id {
			return r
		}
	}
	return nil
}

func newLoggedServer(t *testing.T, slow time.Duration) (*testServer, *logBuf) {
	t.Helper()
	var log logBuf
	lg, err := NewLogger(&log, "json", slog.LevelDebug)
	if err != nil {
		t.Fatal(err)
	}
	return newTestServerConfig(t, Config{Logger: lg, SlowQuery: slow}), &log
}

// An error body carries the request id of X-Request-Id, and the log line
// of that request (info for a refusal) carries it too, with the message.
func TestErrorBodyAndLogShareTheRequestID(t *testing.T) {
	ts, log := newLoggedServer(t, 0)
	r := ts.must(req{method: "POST", path: "/v1/datasets/_apl", body: map[string]any{"apl": "['nosuch'] | count"}}, 404)
	var body struct {
		Message   string `json:"message"`
		RequestID string `json:"requestId"`
	}
	r.json(t, &body)
	id := r.header["X-Request-Id"]
	if id == "" || body.RequestID != id {
		t.Fatalf("X-Request-Id %q, body's requestId %q: want the same, not empty", id, body.RequestID)
	}
	rec := findRecord(log.records(t), "request refused", id)
	if rec == nil {
		t.Fatalf("no refusal logged with request_id %s:\n%s", id, log.b.String())
	}
	if rec["level"] != "INFO" || rec["status"] != float64(404) || rec["error"] != body.Message ||
		rec["method"] != "POST" || rec["path"] != "/v1/datasets/_apl" {
		t.Fatalf("refusal logged as %v; want INFO, 404, %q", rec, body.Message)
	}
}

// Every request is logged at debug level; a query slower than SlowQuery
// again at info, with its APL.
func TestRequestAndSlowQueryLog(t *testing.T) {
	ts, log := newLoggedServer(t, time.Nanosecond)
	ts.createDataset("logs")
	r := ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['logs'] | count"}}, 200)
	id := r.header["X-Request-Id"]
	recs := log.records(t)
	done := findRecord(recs, "request", id)
	if done == nil || done["level"] != "DEBUG" || done["status"] != float64(200) || done["duration"] == nil {
		t.Fatalf("request logged as %v, want DEBUG with status 200 and a duration:\n%s", done, log.b.String())
	}
	slow := findRecord(recs, "slow query", id)
	if slow == nil || slow["level"] != "INFO" || slow["apl"] != "['logs'] | count" {
		t.Fatalf("slow query logged as %v, want INFO with its APL", slow)
	}
	// Only queries are slow queries.
	for _, rec := range recs {
		if rec["msg"] == "slow query" && rec["path"] != "/v1/datasets/_apl" {
			t.Fatalf("%v logged as a slow query", rec)
		}
	}
}

// A proxy's own request id is kept, so its logs and the server's join; a
// value that is not a plausible id is replaced by the server's.
func TestProxyRequestIDIsKept(t *testing.T) {
	ts, log := newLoggedServer(t, 0)
	r := ts.must(req{method: "GET", path: "/v2/datasets/nosuch", headers: map[string]string{"X-Request-Id": "lb-7f3a.1"}}, 404)
	if r.header["X-Request-Id"] != "lb-7f3a.1" || !strings.Contains(string(r.body), `"requestId":"lb-7f3a.1"`) {
		t.Fatalf("proxy id not kept: header %q, body %s", r.header["X-Request-Id"], r.body)
	}
	if findRecord(log.records(t), "request refused", "lb-7f3a.1") == nil {
		t.Fatalf("no log line with the proxy's id:\n%s", log.b.String())
	}
	long := strings.Repeat("x", maxRequestID+1)
	for _, bad := range []string{"two words", long} {
		r = ts.must(req{method: "GET", path: "/v2/datasets/nosuch", headers: map[string]string{"X-Request-Id": bad}}, 404)
		if got := r.header["X-Request-Id"]; got == bad || got != r.header["X-Axiom-Trace-Id"] {
			t.Fatalf("id %q answered as %q, want the trace id %q", bad, got, r.header["X-Axiom-Trace-Id"])
		}
	}
}

// The notices written as text and fasthttp's own messages come out as
// records of the one logger: failures as warnings.
func TestTextNoticesBecomeRecords(t *testing.T) {
	var log logBuf
	lg, _ := NewLogger(&log, "json", slog.LevelInfo)
	w := LogWriter(lg)
	w.Write([]byte("aplite: fragment on 10.0.0.2:8080 failed (its blocks go to another node): EOF\naplite: created personal "))
	w.Write([]byte("access token for org \"default\"\n"))
	s := &Server{cfg: Config{Logger: lg}}
	fasthttpLogger{s}.Printf("error when serving connection %q<->%q: %v", "127.0.0.1:8080", "127.0.0.1:5555", "read: connection reset")
	recs := log.records(t)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(recs), log.b.String())
	}
	if recs[0]["level"] != "WARN" || recs[0]["msg"] != "fragment on 10.0.0.2:8080 failed (its blocks go to another node): EOF" {
		t.Errorf("failure notice: %v", recs[0])
	}
	if recs[1]["level"] != "INFO" || recs[1]["msg"] != `created personal access token for org "default"` {
		t.Errorf("notice written in two parts: %v", recs[1])
	}
	if recs[2]["level"] != "WARN" || recs[2]["source"] != "fasthttp" || !strings.Contains(recs[2]["msg"].(string), "connection reset") {
		t.Errorf("fasthttp's message: %v", recs[2])
	}
}

func TestLogOptions(t *testing.T) {
	if _, err := NewLogger(nil, "xml", slog.LevelInfo); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("format xml: %v", err)
	}
	if _, err := ParseLogLevel("loud"); err == nil || !strings.Contains(err.Error(), `"loud"`) {
		t.Errorf("level loud: %v", err)
	}
	if l, err := ParseLogLevel("debug"); err != nil || l != slog.LevelDebug {
		t.Errorf("level debug: %v %v", l, err)
	}
}
