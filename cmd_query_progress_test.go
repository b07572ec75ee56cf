package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
)

// lockedBuffer is a bytes.Buffer the progress goroutine and the test
// share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A query over files read in place counts every byte and row it decodes,
// NDJSON and Parquet, and the progress line says so while it runs and is
// cleared at the end.
func TestScanProgressCountsWhatTheQueryReads(t *testing.T) {
	dir := t.TempDir()
	nd := filepath.Join(dir, "e.ndjson")
	realisticNDJSON(t, nd, 30_000)
	pq := filepath.Join(dir, "e.parquet")
	if _, errOut, code := aplite(t, "", "query", "-in", "logs="+nd, "-format", "parquet", "-o", pq, "logs"); code != 0 {
		t.Fatalf("writing Parquet: %s", errOut)
	}
	for _, path := range []string{nd, pq} {
		var out lockedBuffer
		p := newScanProgressTo(&out, time.Millisecond, []string{path})
		in := []string{"logs=" + path}
		req := &db.Request{APL: "logs | summarize count() by status"}
		keep := queryFields(req.APL)
		streams, rest, _, err := fileStreams(in, nil, keep, 1<<20, p)
		if err != nil {
			t.Fatal(err)
		}
		p.start()
		if _, _, err := queryStreams(streams, rest, nil, keep, req); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // one more tick
		line := p.line()
		p.done()
		st, _ := os.Stat(path)
		bytes, rows := p.counts()
		if rows != 30_000 || bytes <= 0 || bytes > st.Size() {
			t.Errorf("%s: counted %d rows and %d bytes of %d", path, rows, bytes, st.Size())
		}
		if filepath.Ext(path) == ".ndjson" && bytes != st.Size() {
			t.Errorf("%s: counted %d bytes, want all %d", path, bytes, st.Size())
		}
		if !strings.Contains(line, filepath.Base(path)+": ") || !strings.Contains(line, "30000 rows") {
			t.Errorf("%s: progress line %q", path, line)
		}
		if s := out.String(); !strings.Contains(s, "MiB read") || !strings.HasSuffix(s, "\r\033[K") {
			t.Errorf("%s: printed %q, want progress lines then a cleared line", path, s)
		}
	}
}

// Off a terminal (as under go test) nothing is shown, and the nil
// progress is safe to use.
func TestScanProgressOffTerminal(t *testing.T) {
	p := newScanProgress([]string{"x"})
	if p != nil {
		t.Skip("stderr is a terminal here")
	}
	p.part().read(10, 1)
	p.start()
	p.done()
}
