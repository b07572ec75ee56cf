//go:build linux

package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// smallDisk mounts a tmpfs of size bytes at a temporary directory, or
// skips the test where mounting is not allowed (not root, no
// CAP_SYS_ADMIN).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes a file until the disk is full and returns it.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !strings.Contains(err.Error(), "no space") {
				t.Fatal(err)
			}
			break
		}
	}
	for { // the last small blocks
		if _, err := f.Write(chunk[:512]); err != nil {
			break
		}
	}
	return path
}

// The case, on a real full filesystem: while the disk is full an
// ingest answers 507 with Retry-After and a message that names no path of
// the server's; once space is freed the next ingest succeeds without a
// restart; after a restart every acknowledged event is there and the
// answer is not marked partial.
func TestIngestOnAFullDisk(t *testing.T) {
	dir := smallDisk(t, "8m")
	var log bytes.Buffer
	ts, stop := diskServer(t, dir, &log)
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	ingestBatches(ts, 5)
	filler := fill(t, dir)
	body := strings.Repeat(`{"_time":"2024-01-01T00:00:00Z","msg":"`+strings.Repeat("x", 200)+`"}`+"\n", 200)
	for i := 0; i < 3; i++ {
		r := ts.do(req{method: "POST", path: "/v1/datasets/logs/ingest", body: body, contentType: "application/x-ndjson"})
		var e struct{ Message string }
		json.Unmarshal(r.body, &e)
		if r.status != 507 || r.header["Retry-After"] == "" || strings.Contains(string(r.body), dir) || !strings.Contains(e.Message, "disk is full") {
			t.Fatalf("ingest %d on a full disk: %d %v %s", i, r.status, r.header, r.body)
		}
	}
	if m := ts.do(req{method: "GET", path: "/metrics"}); !strings.Contains(string(m.body), "aplite_ingest_disk_full_total 3") {
		t.Errorf("/metrics does not count the refused ingests")
	}
	os.Remove(filler)
	ingestBatches(ts, 5) // no restart
	stop()
	ts, stop = diskServer(t, dir, &log)
	if n, partial, msgs := partialCount(ts); n != 100 || partial {
		t.Fatalf("after a restart: count %v, isPartial %v\n%s\nlog:\n%s", n, partial, msgs, log.String())
	}
	stop()

	// A server started on a full disk serves queries and answers 507
	// to ingest, then takes ingest once space is back.
	filler = fill(t, dir)
	ts, stop = diskServer(t, dir, &log)
	defer stop()
	if n, partial, _ := partialCount(ts); n != 100 || partial {
		t.Fatalf("started on a full disk: count %v, isPartial %v", n, partial)
	}
	ts.must(req{method: "POST", path: "/v1/datasets/logs/ingest", body: body, contentType: "application/x-ndjson"}, 507)
	os.Remove(filler)
	ingestBatches(ts, 1)
	if n, _, _ := partialCount(ts); n != 110 {
		t.Fatalf("count %v after space came back", n)
	}
}
