package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aplite/aplite/db"
)

// copyTree copies the files under src (but the lock) to dst: taken while
// a server runs, it is the directory a crash would leave.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if info.Name() == "LOCK" || !info.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// flipWALRecord flips a byte in the middle of record k (from 1) of a WAL
// segment, walking the framing of either WAL version (FORMAT.md).
func flipWALRecord(t *testing.T, seg string, k int) {
	t.Helper()
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	head, lenAt := 8, 0 // version 1: length | crc
	if data[6] == 2 {
		head, lenAt = 16, 4 // version 2: magic | length | crc | headCRC
	}
	off := 8
	for i := 1; i < k; i++ {
		off += head + int(binary.LittleEndian.Uint32(data[off+lenAt:]))
	}
	n := int(binary.LittleEndian.Uint32(data[off+lenAt:]))
	data[off+head+n/2] ^= 0x40
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// partialCount runs a count over logs and returns it, isPartial and the
// messages.
func partialCount(ts *testServer) (float64, bool, string) {
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
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular&nocache=true", body: map[string]any{"apl": "['logs'] | count"}}, 200).json(ts.t, &st)
	var msgs strings.Builder
	for _, m := range st.Status.Messages {
		msgs.WriteString(m.Code + ": " + m.Msg + "\n")
	}
	if len(st.Tables) == 0 || len(st.Tables[0].Columns) == 0 {
		ts.t.Fatalf("count answered no table")
	}
	n, _ := st.Tables[0].Columns[0][0].(float64)
	return n, st.Status.IsPartial, msgs.String()
}

// ingestBatches sends n requests of 10 events each to logs.
func ingestBatches(ts *testServer, n int) {
	for b := 0; b < n; b++ {
		var nd strings.Builder
		for i := 0; i < 10; i++ {
			nd.WriteString(`{"_time":"2024-01-01T00:00:00Z","b":` + itoa(int64(b)) + `,"i":` + itoa(int64(i)) + "}\n")
		}
		ts.must(req{method: "POST", path: "/v1/datasets/logs/ingest", body: nd.String(), contentType: "application/x-ndjson"}, 200)
	}
}

// The case: 20 acknowledged requests of 10 events, a server
// killed before it flushed, one byte flipped in the 10th record of the
// last WAL segment. The restarted server answers 190 events (not 90),
// says the answer is partial and why, counts the damage on /metrics and
// logs it.
func TestWALDamageIsPartialNotSilent(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	var log bytes.Buffer
	ts, stop := diskServer(t, dir, &log)
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	ingestBatches(ts, 20)
	copyTree(t, dir, crashed)
	stop()
	segs, _ := filepath.Glob(filepath.Join(crashed, "logs", "wal", "*.wal"))
	if len(segs) == 0 {
		t.Fatal("no WAL segment in the crash image")
	}
	flipWALRecord(t, segs[len(segs)-1], 10)

	log.Reset()
	ts, stop = diskServer(t, crashed, &log)
	defer stop()
	n, partial, msgs := partialCount(ts)
	if n != 190 || !partial || !strings.Contains(msgs, filepath.Base(segs[len(segs)-1])) {
		t.Fatalf("count %v, isPartial %v, messages:\n%s", n, partial, msgs)
	}
	if strings.Contains(msgs, crashed) {
		t.Errorf("a message names the server's directory:\n%s", msgs)
	}
	if !strings.Contains(log.String(), "set aside") {
		t.Errorf("start-up log does not report the damage:\n%s", log.String())
	}
	if m := ts.do(req{method: "GET", path: "/metrics"}); !strings.Contains(string(m.body), "aplite_store_damaged_blocks 1") {
		t.Errorf("/metrics does not count the damage")
	}
}

// The case: a block file deleted while the server is stopped
// (2,000 of 3,000 events left). The restarted server logs it, every
// query says the answer is partial naming the file, and /metrics counts
// it.
func TestMissingBlockIsPartialNotSilent(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	ts, stop := diskServer(t, dir, &log)
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	for b := 0; b < 3; b++ {
		ingestBatches(ts, 100)
		stop() // each stop flushes the batches into a block of their own
		ts, stop = diskServer(t, dir, &log)
	}
	stop()
	blocks, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	if len(blocks) != 3 {
		t.Fatalf("%d block files, want 3", len(blocks))
	}
	os.Remove(blocks[1])

	log.Reset()
	ts, stop = diskServer(t, dir, &log)
	defer stop()
	n, partial, msgs := partialCount(ts)
	if n != 2000 || !partial || !strings.Contains(msgs, filepath.Base(blocks[1])) {
		t.Fatalf("count %v, isPartial %v, messages:\n%s", n, partial, msgs)
	}
	if !strings.Contains(log.String(), filepath.Base(blocks[1])) {
		t.Errorf("start-up log does not name the missing block:\n%s", log.String())
	}
	if m := ts.do(req{method: "GET", path: "/metrics"}); !strings.Contains(string(m.body), "aplite_store_damaged_blocks 1") {
		t.Errorf("/metrics does not count the missing block")
	}
}

// An ingest that was read but could not be stored for a reason other
// than a full disk is a 500 whose body says nothing was stored and names
// no file of the server's (the log has the cause).
func TestStoreFailureNamesNoPath(t *testing.T) {
	ts := newTestServer(t)
	ts.do(req{method: "GET", path: "/v2/user"}) // serving: a Shutdown before Serve would leave Serve running
	// New wraps the test's buffer so the logger and the notices take
	// turns writing it; read it the same way.
	lw := ts.s.cfg.Log.(*lockedWriter)
	logText := func() string {
		lw.mu.Lock()
		defer lw.mu.Unlock()
		return lw.w.(*bytes.Buffer).String()
	}
	cause := &os.PathError{Op: "write", Path: "/srv/aplite/data/logs/wal/00000000000000000001.wal", Err: errors.New("input/output error")}
	var e *apiError
	if !errors.As(ts.s.storeFailed("logs", cause), &e) {
		t.Fatal("not an API error")
	}
	if e.Status != 500 || strings.Contains(e.Message, "/srv/aplite") || !strings.Contains(e.Message, "none of them were stored") {
		t.Errorf("%d %q", e.Status, e.Message)
	}
	if !strings.Contains(logText(), "/srv/aplite/data/logs/wal") {
		t.Errorf("the log lacks the cause: %q", logText())
	}
	full := fmt.Errorf("append: %w: %w", db.ErrNoSpace, cause)
	if !errors.As(ts.s.storeFailed("logs", full), &e) || e.Status != 507 || strings.Contains(e.Message, "/srv/aplite") || len(e.Headers) == 0 {
		t.Errorf("full disk: %+v", e)
	}
}
