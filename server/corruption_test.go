package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// diskServer runs a server over dir until stop, logging into log.
func diskServer(t *testing.T, dir string, log *bytes.Buffer) (*testServer, func()) {
	t.Helper()
	s, err := New(Config{DataDir: dir, Token: "xapt-test-admin-token-0001", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	client := &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }}
	ts := &testServer{t: t, s: s, client: client, token: s.Token(), org: s.OrgID()}
	ts.do(req{method: "GET", path: "/v2/user"}) // serving: a Shutdown before Serve would leave Serve running
	return ts, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	}
}

// A block whose header is damaged while the server is stopped is set
// aside at start with a log line, counted on /metrics, listed in the
// dataset's info, and every query over the dataset says it is partial. A
// damaged column is an error whose message names the file but not the
// server's directories.
func TestDamagedBlocksAreLoud(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	ts, stop := diskServer(t, dir, &log)
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	for batch := 0; batch < 2; batch++ {
		var nd strings.Builder
		for i := 0; i < 500; i++ {
			nd.WriteString(`{"_time":"2024-01-01T00:00:00Z","b":` + itoa(int64(batch)) + `,"msg":"event ` + itoa(int64(i)) + `"}` + "\n")
		}
		ts.must(req{method: "POST", path: "/v1/datasets/logs/ingest", body: nd.String(), contentType: "application/x-ndjson"}, 200)
		stop() // each stop flushes the batch into its own block
		ts, stop = diskServer(t, dir, &log)
	}
	stop()
	blocks, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	if len(blocks) != 2 {
		t.Fatalf("%d block files, want 2", len(blocks))
	}
	raw, _ := os.ReadFile(blocks[0])
	copy(raw[len(raw)-20:], bytes.Repeat([]byte{0xff}, 12)) // the trailer: index offset and length
	os.WriteFile(blocks[0], raw, 0o644)

	log.Reset()
	ts, stop = diskServer(t, dir, &log)
	if !strings.Contains(log.String(), "corrupt block") || !strings.Contains(log.String(), filepath.Base(blocks[0])) {
		t.Errorf("start-up log does not report the damaged block:\n%s", log.String())
	}
	var st struct {
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
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['logs'] | count"}}, 200).json(t, &st)
	if !st.Status.IsPartial || len(st.Tables) == 0 || st.Tables[0].Columns[0][0] != float64(500) {
		t.Fatalf("query over a damaged dataset: partial %v, %v", st.Status.IsPartial, st.Tables)
	}
	found := false
	for _, m := range st.Status.Messages {
		found = found || m.Code == "apl_partialresult_damagedblocks" && strings.Contains(m.Msg, filepath.Base(blocks[0]))
	}
	if !found {
		t.Errorf("no message names the damaged block: %+v", st.Status.Messages)
	}
	var info struct {
		Damaged []struct{ Name, Reason string } `json:"damaged"`
	}
	ts.must(req{method: "GET", path: "/v1/datasets/logs/info"}, 200).json(t, &info)
	if len(info.Damaged) != 1 || info.Damaged[0].Name != filepath.Base(blocks[0]) {
		t.Errorf("dataset info lists %+v", info.Damaged)
	}
	metrics := ts.do(req{method: "GET", path: "/metrics"})
	if !strings.Contains(string(metrics.body), "aplite_store_damaged_blocks 1") {
		t.Errorf("/metrics does not count the damaged block")
	}
	// Damage a column of the other, valid block: the query fails, and the
	// answer carries no path of the server's.
	stop()
	raw, _ = os.ReadFile(blocks[1])
	ioff := int(binary.LittleEndian.Uint64(raw[len(raw)-20:]))
	for i := 8; i < ioff; i++ { // every column blob, none of the index
		raw[i] ^= 0x5a
	}
	os.WriteFile(blocks[1], raw, 0o644)
	ts, stop = diskServer(t, dir, &log)
	r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular&nocache=true", body: map[string]any{"apl": "['logs'] | summarize count() by b, msg"}})
	var e struct{ Message string }
	json.Unmarshal(r.body, &e)
	if r.status != 500 || !strings.Contains(e.Message, "damaged") || strings.Contains(e.Message, dir) {
		t.Errorf("damaged column: %d %q", r.status, e.Message)
	}
	if !strings.Contains(log.String(), filepath.Join(dir, "logs")) {
		t.Errorf("the log does not name the damaged file's path:\n%s", log.String())
	}
	stop()
}
