package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server"
)

const ingestToken = "xapt-cli-ingest"

// ingestServer starts a server in this process whose body limit is
// limit bytes and returns its URL.
func ingestServer(t *testing.T, limit int64) string {
	t.Helper()
	s, err := server.New(server.Config{DataDir: t.TempDir(), Token: ingestToken, Log: io.Discard, MaxBodyBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// apl runs a query on the server and returns its first table's columns.
func apl(t *testing.T, base, q string) [][]any {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"apl": q})
	req, _ := http.NewRequest("POST", base+"/v1/datasets/_apl?format=tabular", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+ingestToken)
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &res); err != nil || resp.StatusCode != 200 || len(res.Tables) == 0 {
		t.Fatalf("%s: %d %s", q, resp.StatusCode, raw)
	}
	return res.Tables[0].Columns
}

func newIngestClient(base string) (*ingestClient, *bytes.Buffer) {
	var log bytes.Buffer
	return &ingestClient{url: base, token: ingestToken, org: "default", limit: 8 << 20,
		http: http.DefaultClient, sleep: func(time.Duration) { panic("no wait expected") }, log: &log}, &log
}

// A file several times the server's body limit arrives whole, each event
// once, as NDJSON (gzip), a JSON array and CSV; the default 8 MB batches
// are halved on 413 until they fit.
func TestIngestLargerThanBodyLimit(t *testing.T) {
	base := ingestServer(t, 32<<10)
	dir := t.TempDir()
	const n = 3000
	var nd, arr, csvText bytes.Buffer
	arr.WriteString("[\n")
	csvText.WriteString("id,msg,status\n")
	for i := range n {
		msg := fmt.Sprintf("request %d took, \"quoted\" %s", i, strings.Repeat("x", i%50))
		ev, _ := json.Marshal(map[string]any{"id": i, "msg": msg, "status": 200 + i%5})
		nd.Write(append(ev, '\n'))
		if i > 0 {
			arr.WriteString(",\n")
		}
		arr.Write(ev)
		fmt.Fprintf(&csvText, "%d,\"%s\",%d\n", i, strings.ReplaceAll(msg, `"`, `""`), 200+i%5)
	}
	arr.WriteString("\n]\n")
	if nd.Len() < 4*32<<10 {
		t.Fatalf("the file (%d bytes) should be several times the body limit", nd.Len())
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(nd.Bytes())
	zw.Close()
	files := map[string][]byte{"events.ndjson.gz": gz.Bytes(), "events.json": arr.Bytes(), "events.csv": csvText.Bytes()}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		dataset := strings.ReplaceAll(name, ".", "-")
		c, log := newIngestClient(base)
		c.dataset = dataset
		format, err := ingestFormat(path, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.sendFile(path, format, false); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log)
		}
		if c.sent.Load() != n || c.failed != 0 || c.requests < 4 || c.limit > 32<<10 {
			t.Errorf("%s: %d sent, %d failed, %d requests, batch limit now %d", name, c.sent.Load(), c.failed, c.requests, c.limit)
		}
		got := apl(t, base, fmt.Sprintf("['%s'] | summarize k = count() by id, msg | summarize events = sum(k), ids = count(), twice = countif(k > 1), lo = min(id), hi = max(id)", dataset))
		want := []any{float64(n), float64(n), float64(0), float64(0), float64(n - 1)}
		for i, w := range want {
			if len(got[i]) != 1 || got[i][0] != w {
				t.Errorf("%s: column %d is %v, want %v (every event exactly once)", name, i, got[i], w)
			}
		}
		if !strings.Contains(log.String(), "created dataset") {
			t.Errorf("%s: creating the dataset was not said: %q", name, log)
		}
	}
}

// 429 and 503 are retried after Retry-After; the batch is sent once it is
// accepted, not twice.
func TestIngestRetriesBusyServer(t *testing.T) {
	var answers = []int{429, 503, 200, 200}
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		status := answers[0]
		answers = answers[1:]
		if status != 200 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(status)
			fmt.Fprint(w, `{"message":"busy"}`)
			return
		}
		bodies = append(bodies, string(b))
		fmt.Fprintf(w, `{"ingested":%d,"failed":0,"failures":[]}`, strings.Count(string(b), "\n"))
	}))
	defer srv.Close()
	c, _ := newIngestClient(srv.URL)
	var waits []time.Duration
	c.sleep = func(d time.Duration) { waits = append(waits, d) }
	c.dataset, c.limit = "logs", 20
	path := filepath.Join(t.TempDir(), "e.ndjson")
	os.WriteFile(path, []byte("{\"a\":1}\n\n{\"a\":2}\n{\"a\":3}"), 0o644)
	if err := c.sendFile(path, "ndjson", false); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(waits) != "[7s 7s]" || c.sent.Load() != 3 || len(bodies) != 2 ||
		bodies[0] != "{\"a\":1}\n{\"a\":2}\n" || bodies[1] != "{\"a\":3}\n" {
		t.Errorf("waits %v, %d sent, bodies %q", waits, c.sent.Load(), bodies)
	}
}

// A refusal stops the command with the server's message, the place in the
// file and what was sent before it; the binary exits 1.
func TestIngestRefused(t *testing.T) {
	base := ingestServer(t, 1<<20)
	path := filepath.Join(t.TempDir(), "e.ndjson")
	os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2}\n"), 0o644)
	_, errOut, code := aplite(t, "", "ingest", "-url", base, "-token", "xapt-not-a-token-of-this-server", "logs", path)
	if code != 1 || !strings.Contains(errOut, "the server answered 403 for the batch from line 1: ") || !strings.Contains(errOut, "0 events sent before it") {
		t.Errorf("a bad token: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = aplite(t, "", "ingest", "-url", base, "-token", ingestToken, "-batch-bytes", "10", "logs", path)
	if code != 0 || !strings.Contains(errOut, `2 events ingested into "logs" in 2 requests`) {
		t.Errorf("small batches: exit %d, stderr %q", code, errOut)
	}
	big := filepath.Join(t.TempDir(), "big.ndjson")
	os.WriteFile(big, []byte("{\"a\":1}\n{\"s\":\""+strings.Repeat("y", 2<<20)+"\"}\n"), 0o644)
	_, errOut, code = aplite(t, "", "ingest", "-url", base, "-token", ingestToken, "logs", big)
	if code != 1 || !strings.Contains(errOut, "the event at line 2 alone") || !strings.Contains(errOut, "1 events sent before it") {
		t.Errorf("an event over the body limit: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code = aplite(t, "", "ingest", "-url", base, "logs", path); code != 2 || !strings.Contains(errOut, "-token") {
		t.Errorf("no token: exit %d, stderr %q", code, errOut)
	}
}
