package db

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

func newDB(t *testing.T, datasets ...string) *DB {
	t.Helper()
	d := OpenMemory(Options{Store: store.Options{NoSync: true}})
	t.Cleanup(func() { d.Close() })
	for _, name := range datasets {
		if _, err := d.Create(name); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// count runs `['name'] | count` and returns the answer.
func count(t *testing.T, d *DB, name string) int64 {
	t.Helper()
	o, err := d.Query(context.Background(), &core.Request{APL: fmt.Sprintf("['%s'] | count", name), DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return o.Value(0, 0).(int64)
}

// Each format is recognised from its first bytes, and the events are
// queryable as soon as Ingest returns.
func TestIngestSniffs(t *testing.T) {
	d := newDB(t, "logs")
	for body, want := range map[string]ingest.Format{
		`[{"a":1},{"a":2}]`:      ingest.JSON,
		"{\"a\":1}\n{\"a\":2}\n": ingest.NDJSON,
		"a,b\n1,x\n2,y\n":        ingest.CSV,
	} {
		res, err := d.Ingest("logs", []byte(body), ingest.Options{Format: Sniff})
		if err != nil || res.Format != want || res.Ingested != 2 {
			t.Errorf("%q: %+v %v, want format %v and 2 events", body, res, err, want)
		}
	}
	if n := count(t, d, "logs"); n != 6 {
		t.Errorf("count %d, want 6", n)
	}
}

// A body that cannot be read stores nothing and says where it broke; an
// unknown dataset is ErrNotFound.
func TestIngestFailures(t *testing.T) {
	d := newDB(t, "logs")
	_, err := d.Ingest("logs", []byte(`[{"a":1},{"a":`), ingest.Options{Format: ingest.JSON})
	var se *ingest.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("truncated JSON: %v, want a *ingest.SyntaxError", err)
	}
	if n := count(t, d, "logs"); n != 0 {
		t.Errorf("a broken body stored %d events", n)
	}
	if _, err := d.Ingest("nope", []byte(`{}`), ingest.Options{Format: Sniff}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown dataset: %v", err)
	}
}

// A stream is cut into chunks decoded in parallel: every event arrives
// once, failed lines are counted (the first few listed), and progress
// adds up to the events stored.
func TestIngestStream(t *testing.T) {
	d := newDB(t, "logs")
	var in strings.Builder
	const n = 30000
	for i := range n {
		if i%10000 == 7 {
			in.WriteString("{not json}\n")
		}
		fmt.Fprintf(&in, "{\"i\":%d,\"msg\":%q}\n", i, strings.Repeat("m", i%50))
	}
	var p StreamProgress
	res, err := d.IngestStream("logs", iotest.HalfReader(strings.NewReader(in.String())), StreamOptions{Options: ingest.Options{Format: ingest.NDJSON}, Progress: &p})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ingested != n || res.Failed != 3 || len(res.Failures) != 3 || p.Rows.Load() != n {
		t.Errorf("ingested %d failed %d (%d listed), progress %d; want %d, 3", res.Ingested, res.Failed, len(res.Failures), p.Rows.Load(), n)
	}
	if got := count(t, d, "logs"); got != n {
		t.Errorf("count %d, want %d", got, n)
	}
	o, err := d.Query(context.Background(), &core.Request{APL: "['logs'] | summarize sum(i)", DisableCache: true})
	if err != nil || o.Value(0, 0) != int64(n*(n-1)/2) {
		t.Errorf("sum(i) = %v %v: an event was lost or repeated", o.Value(0, 0), err)
	}
}

// Chunks end at newlines, lose and repeat nothing, even when a line is
// longer than a chunk or the input has no final newline.
func TestCutLines(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&in, "{\"i\":%d,\"pad\":%q}\n", i, strings.Repeat("x", i*3))
	}
	in.WriteString(`{"last":true}`)
	for _, size := range []int{1, 7, 100, 1000, 1 << 20} {
		var got bytes.Buffer
		err := cutLines(iotest.HalfReader(strings.NewReader(in.String())), size, func(c []byte) bool {
			if len(c) > 0 && c[len(c)-1] != '\n' && !bytes.HasSuffix(c, []byte(`{"last":true}`)) {
				t.Fatalf("size %d: a chunk ends mid-line: %q", size, c[max(0, len(c)-20):])
			}
			got.Write(c)
			return true
		})
		if err != nil || got.String() != in.String() {
			t.Fatalf("size %d: %v; the chunks do not add up to the input", size, err)
		}
	}
}

// A read error in the middle of a stream is an error, not a short load
// presented as whole.
func TestIngestStreamReadError(t *testing.T) {
	d := newDB(t, "logs")
	r := iotest.TimeoutReader(strings.NewReader(strings.Repeat("{\"a\":1}\n", 1000)))
	if _, err := d.IngestStream("logs", r, StreamOptions{Options: ingest.Options{Format: ingest.NDJSON}}); err == nil {
		t.Error("a failing reader loaded without error")
	}
}

// Events that were read but could not be stored are an *AppendError, so
// a server answers 500, not 400 as for a body it cannot read.
func TestIngestAppendError(t *testing.T) {
	d := newDB(t, "logs")
	ds, _ := d.Dataset("logs")
	if err := d.Delete("logs"); err != nil { // appends to ds now fail
		t.Fatal(err)
	}
	_, err := decodeAppend(&d.fields, ds, []byte(`{"a":1}`), ingest.Options{Format: ingest.NDJSON}, nil)
	var ae *AppendError
	if !errors.As(err, &ae) {
		t.Fatalf("append after close: %v, want an *AppendError", err)
	}
}

// Enough ends a stream early: what was read is stored whole (no event cut
// in two), and the rest of the input is never read.
func TestIngestStreamEnough(t *testing.T) {
	d := newDB(t, "logs")
	line := "{\"a\":1,\"pad\":\"" + strings.Repeat("x", 1000) + "\"}\n"
	n := 3 * StreamChunk / len(line) // three chunks' worth
	r := &countReader{r: strings.NewReader(strings.Repeat(line, n))}
	// Enough first asks with the first chunk stored, however fast the
	// input reads: it says yes once it sees rows.
	var seen int64
	res, err := d.IngestStream("logs", r, StreamOptions{Options: ingest.Options{Format: ingest.NDJSON},
		Enough: func() bool { seen = count(t, d, "logs"); return seen > 0 }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ingested == 0 || res.Ingested >= n || res.Failed != 0 {
		t.Errorf("%d of %d events stored (%d failed); want the first chunk's, whole", res.Ingested, n, res.Failed)
	}
	if seen == 0 {
		t.Error("Enough was never asked with rows stored")
	}
	if got := count(t, d, "logs"); got != int64(res.Ingested) {
		t.Errorf("count %d, ingested %d", got, res.Ingested)
	}
	if r.n >= int64(n*len(line)) {
		t.Errorf("read all %d bytes of the input", r.n)
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
