package session

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aplite/aplite/bench/gen"
)

// TestPlaceKeepsColumns checks that a query over a file read in place
// keeps the columns it decoded: the same query again, and any query
// over fields already read, reads nothing from the file (in this engine
// and its helpers) and answers as the file loaded into the store does; a
// query over a field not read yet reads the file once more.
//
// The events are of the tidy shape, each field of one type. Over the
// real shape (numbers sometimes sent as strings) a piece can widen a
// type the receiver planned with; the helper's fragment then fails and
// the receiver reads that piece itself (fragment_stream.go), so whether
// a later query reads depends on which engine saw which chunk first
// (1 run in 4 read again at the last step). Answers stay whole either
// way; wasm/README.md lists the re-read as a known gap.
func TestPlaceKeepsColumns(t *testing.T) {
	smallPieces(t)
	data := gen.NewWith(1, gen.Options{Shape: gen.Tidy, EventsPerDay: 4000}).AppendNDJSON(nil, 4000)
	loaded := newTestSession(t)
	mustLoad(t, loaded, "events", string(data), NDJSON)
	var reads, helperReads atomic.Int64
	s := newTestSession(t)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, &reads), testNow); err != nil {
		t.Fatal(err)
	}
	withHelpersReading(t, s, "events.ndjson", data, 2, nil, &helperReads)
	const (
		status = "['events'] | summarize count() by status"
		method = "['events'] | summarize avg(req_duration_ms), count() by method"
		raw    = "['events'] | where status >= 500 | sort by id asc | take 4"
		city   = "['events'] | summarize dcount(['geo.city']) by server_datacenter, is_tls"
	)
	steps := []struct {
		apl  string
		read bool // whether the step reads the file
	}{
		{status, true}, {status, false},
		{method, true}, {method, false}, {status, false},
		{raw, true}, // every field: each later query is answered from memory
		{city, false}, {status, false}, {raw, false},
	}
	for i, st := range steps {
		if got := s.InMemory(st.apl); got == st.read {
			t.Errorf("step %d, before %s: InMemory = %v, want %v", i, st.apl, got, !st.read)
		}
		reads.Store(0)
		helperReads.Store(0)
		got, err := s.Query(context.Background(), st.apl, QueryOptions{Now: testNow})
		if err != nil {
			t.Fatalf("step %d: %s: %v", i, st.apl, err)
		}
		want := must(loaded.Query(context.Background(), st.apl, QueryOptions{Now: testNow}))
		if g, w := rows(t, got), rows(t, want); !slices.Equal(g, w) || len(w) == 0 {
			t.Errorf("step %d: %s:\n got %v\nwant %v", i, st.apl, g, w)
		}
		if r, h := reads.Load(), helperReads.Load(); st.read != (r > 0 && h > 0) || !st.read && r+h > 0 {
			t.Errorf("step %d: %s read the file %d times here and %d in the helpers; want reads: %v", i, st.apl, r, h, st.read)
		}
		if len(got.Status.Messages) != 0 {
			t.Errorf("step %d: %s: messages %+v", i, st.apl, got.Status.Messages)
		}
	}
}

// TestPlaceCacheLimit checks that the columns kept stop at the engine's
// limit: later queries still answer in full, reading only the slices
// left out, and say so.
func TestPlaceCacheLimit(t *testing.T) {
	limit := cacheLimit
	cacheLimit = 64 << 10
	t.Cleanup(func() { cacheLimit = limit })
	smallPieces(t)
	data := realEvents(4000)
	var reads atomic.Int64
	s := newTestSession(t)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, &reads), testNow); err != nil {
		t.Fatal(err)
	}
	const q = "['events'] | summarize count() by method"
	var first int64
	for run := range 2 {
		reads.Store(0)
		res := must(s.Query(context.Background(), q, QueryOptions{Now: testNow}))
		n := 0
		for _, r := range res.Tables[0].Columns[1] {
			n += int(r.(int64))
		}
		if n != 4000 {
			t.Errorf("run %d: the counts add up to %d, want 4000", run, n)
		}
		b, _ := json.Marshal(res.Status.Messages)
		if !strings.Contains(string(b), NotCachedCode) || !strings.Contains(string(b), "read from the file again") {
			t.Errorf("run %d: the answer does not say the file is read again: %s", run, b)
		}
		if run == 0 {
			first = reads.Load()
		} else if r := reads.Load(); r == 0 || r >= first {
			t.Errorf("the second run read %d times, the first %d: want fewer, not none", r, first)
		}
	}
	if s.InMemory(q) {
		t.Error("InMemory says a file whose columns passed the limit is in memory")
	}
}

// TestPlaceCachedBadLines checks that a query answered from the kept
// columns still reports the lines that could not be decoded.
func TestPlaceCachedBadLines(t *testing.T) {
	data := []byte(events + "{\"status\": 200,\n{not json}\n")
	var reads atomic.Int64
	s := newTestSession(t)
	if _, err := s.OpenFile("bad.ndjson", int64(len(data)), reader(data, &reads), testNow); err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		reads.Store(0)
		res := must(s.Query(context.Background(), "['bad'] | summarize count()", QueryOptions{Now: testNow}))
		b, _ := json.Marshal(res)
		if got := rows(t, res); !slices.Equal(got, []string{"4"}) || !strings.Contains(string(b), "2 lines could not be read") {
			t.Errorf("run %d: count %v; the answer: %s", run, got, b)
		}
		if run == 1 && reads.Load() != 0 {
			t.Errorf("the second run read the file %d times", reads.Load())
		}
	}
}

// TestPlaceFill checks that Fill decodes every field of an engine's
// share of the file: afterwards a query over any field reads nothing
// and answers as the loaded file does. A Fill cancelled halfway keeps
// what it decoded, and the next one reads only the rest.
func TestPlaceFill(t *testing.T) {
	smallPieces(t)
	data := realEvents(3000)
	loaded := newTestSession(t)
	mustLoad(t, loaded, "events", string(data), NDJSON)
	var reads atomic.Int64
	s := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	read := reader(data, &reads)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), func(c context.Context, off int64, dst []byte) (int, error) {
		if reads.Load() == 3 {
			cancel() // the user ran a query
		}
		return read(c, off, dst)
	}, testNow); err != nil {
		t.Fatal(err)
	}
	reads.Store(0)
	if err := s.Fill(ctx, "events", 0, 1); err == nil {
		t.Fatal("a cancelled Fill ended without error")
	}
	cut := reads.Load()
	reads.Store(0)
	if err := s.Fill(context.Background(), "events", 0, 1); err != nil {
		t.Fatal(err)
	}
	total := int64(len(data))/placeChunk + 1
	if r := reads.Load(); r == 0 || r+cut-1 > total {
		t.Errorf("the Fill after a cancel read %d times, the cancelled one %d: want the rest only (%d in all)", r, cut, total)
	}
	for _, q := range placeQueries {
		reads.Store(0)
		got := must(s.Query(context.Background(), q, QueryOptions{Now: testNow}))
		want := must(loaded.Query(context.Background(), q, QueryOptions{Now: testNow}))
		if g, w := rows(t, got), rows(t, want); !slices.Equal(g, w) {
			t.Errorf("%s after Fill:\n got %v\nwant %v", q, g, w)
		}
		if reads.Load() != 0 {
			t.Errorf("%s after Fill read the file %d times", q, reads.Load())
		}
	}
	if err := s.Fill(context.Background(), "nope", 0, 1); err == nil {
		t.Error("Fill of a dataset no file backs did not fail")
	}
}
