package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// smallPieces makes files of a few hundred KiB read in several slices and
// cut into several pieces, as a file of hundreds of MiB is in the tab.
func smallPieces(t *testing.T) {
	chunk, piece := placeChunk, minPiece
	placeChunk, minPiece = 64<<10, 256<<10
	t.Cleanup(func() { placeChunk, minPiece = chunk, piece })
}

// realEvents is n events of bench/gen's real shape: numbers as encoders
// write them, missing and changing fields, free text, nested objects.
func realEvents(n int) []byte {
	g := gen.NewWith(1, gen.Options{Shape: gen.Real, EventsPerDay: n})
	return g.AppendNDJSON(nil, n)
}

// reader reads data as the console's worker reads a File, counting reads.
func reader(data []byte, reads *atomic.Int64) ReadFunc {
	return func(_ context.Context, off int64, dst []byte) (int, error) {
		if reads != nil {
			reads.Add(1)
		}
		return copy(dst, data[min(off, int64(len(data))):]), nil
	}
}

// withHelpers opens data in place in s and in n helper sessions, and
// has s spread its scans over them through their RunFragment, as the
// console's worker does over its Web Workers.
func withHelpers(t *testing.T, s *Session, file string, data []byte, n int, fail func(node string) error) *[]string {
	t.Helper()
	return withHelpersReading(t, s, file, data, n, fail, new(atomic.Int64))
}

// withHelpersReading is withHelpers counting the helpers' reads in reads.
func withHelpersReading(t *testing.T, s *Session, file string, data []byte, n int, fail func(node string) error, reads *atomic.Int64) *[]string {
	t.Helper()
	nodes := []string{"self"}
	helpers := map[string]*Session{}
	for i := range n {
		h := newTestSession(t)
		if _, err := h.AttachFile(file, int64(len(data)), reader(data, reads), testNow); err != nil || reads.Load() != 0 {
			t.Fatalf("attaching a helper's file: %v, %d reads", err, reads.Load())
		}
		name := "helper-" + strconv.Itoa(i+1)
		helpers[name] = h
		nodes = append(nodes, name)
	}
	ran := &[]string{}
	var mu sync.Mutex // pieces run at once: their appends must not race
	s.SetHelpers(&db.Distribution{Nodes: nodes, Self: "self", Run: func(ctx context.Context, node string, f *db.Fragment) ([]byte, error) {
		mu.Lock()
		*ran = append(*ran, node)
		mu.Unlock()
		if fail != nil {
			if err := fail(node); err != nil {
				return nil, err
			}
		}
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		return helpers[node].RunFragment(ctx, b)
	}})
	return ran
}

// rows renders a result's first table as sorted rows, reals to 9
// digits: the pieces add floats in another order than one scan does.
func rows(t *testing.T, res *db.TabularResult) []string {
	t.Helper()
	tab := res.Tables[0]
	var out []string
	n := 0
	if len(tab.Columns) > 0 {
		n = len(tab.Columns[0])
	}
	for r := range n {
		var row []string
		for c := range tab.Columns {
			v := tab.Columns[c][r]
			if f, ok := v.(float64); ok {
				v = strconv.FormatFloat(f, 'g', 9, 64)
			}
			b, _ := json.Marshal(v)
			row = append(row, string(b))
		}
		out = append(out, strings.Join(row, ","))
	}
	slices.Sort(out)
	return out
}

var placeQueries = []string{
	"['events'] | summarize count() by status",
	"['events'] | summarize count(), dcount(['geo.city']), max(req_duration_ms), min(resp_body_size) by method",
	"['events'] | where status >= 500 | summarize count() by bin(_time, 1h)",
	"['events'] | sort by req_duration_ms desc, id asc | take 5 | project id, req_duration_ms",
	"['events'] | where uri has 'api' | count",
	"['events'] | distinct method",
	"['events'] | summarize avg(req_duration_ms), sum(resp_body_size) by server_datacenter",
	"['events'] | where message contains 'timeout' | summarize count() by method",
	"['events'] | take 3 | count",
	"['events'] | where status == 404 | project uri, status | take 4 | count",
	"['events'] | redact '[0-9]+' on uri | summarize count() by uri",
	"['events'] | parse-kv message as (status:string) with (pair_delimiter=' ', kv_delimiter='=') | summarize count() by status",
}

// TestPlaceAnswersLikeLoaded checks that a file queried in place, alone
// and spread over helper engines, answers every query as the same file
// loaded into the store does.
func TestPlaceAnswersLikeLoaded(t *testing.T) {
	smallPieces(t)
	data := realEvents(4000)
	loaded := newTestSession(t)
	mustLoad(t, loaded, "events", string(data), NDJSON)
	alone := newTestSession(t)
	if _, err := alone.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	spread := newTestSession(t)
	if _, err := spread.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	ran := withHelpers(t, spread, "events.ndjson", data, 3, nil)
	for _, q := range placeQueries {
		before := len(*ran)
		want, err := loaded.Query(context.Background(), q, QueryOptions{Now: testNow})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for name, s := range map[string]*Session{"alone": alone, "spread": spread} {
			got, err := s.Query(context.Background(), q, QueryOptions{Now: testNow})
			if err != nil {
				t.Fatalf("%s %s: %v", name, q, err)
			}
			if g, w := rows(t, got), rows(t, want); !slices.Equal(g, w) || len(w) == 0 {
				t.Errorf("%s %s:\n got %v\nwant %v", name, q, g, w)
			}
		}
		if len(*ran) == before {
			t.Errorf("%s: no fragment went to a helper", q)
		}
	}
}

// TestPlaceSpreadsOverHelpers checks that a large enough file is cut
// into one piece per engine and that the examined rows add up.
func TestPlaceSpreadsOverHelpers(t *testing.T) {
	smallPieces(t)
	data := realEvents(4000)
	s := newTestSession(t)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	ran := withHelpers(t, s, "events.ndjson", data, 2, nil)
	res, err := s.Query(context.Background(), "['events'] | summarize count()", QueryOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{"4000"}) {
		t.Errorf("count() = %v, want 4000", got)
	}
	if slices.Sort(*ran); !slices.Equal(*ran, []string{"helper-1", "helper-2"}) {
		t.Errorf("fragments ran on %v, want one on each helper", *ran)
	}
	if res.Status.RowsExamined != 4000 {
		t.Errorf("rowsExamined %d, want 4000", res.Status.RowsExamined)
	}
	// This engine decoded its own piece, the first of three.
	if n := s.RowsRead(); n <= 0 || n >= 4000 {
		t.Errorf("RowsRead() = %d after the query, want this engine's share of 4000", n)
	}
}

// TestPlaceHelperFails checks that a piece goes to the next helper when
// one fails, and that pieces whose helpers all fail are scanned by the
// engine that received the query: the answer stays whole.
func TestPlaceHelperFails(t *testing.T) {
	smallPieces(t)
	data := realEvents(3000)
	s := newTestSession(t)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	broken := map[string]bool{"helper-1": true}
	ran := withHelpers(t, s, "events.ndjson", data, 2, func(node string) error {
		if broken[node] {
			return errors.New("the worker was terminated")
		}
		return nil
	})
	tries := map[bool][]string{false: {"helper-1", "helper-2", "helper-2"}, true: {"helper-1", "helper-1", "helper-2", "helper-2"}}
	for _, all := range []bool{false, true} {
		broken["helper-2"] = all
		*ran = nil
		res, err := s.Query(context.Background(), "['events'] | summarize count()", QueryOptions{Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		if got := rows(t, res); !slices.Equal(got, []string{"3000"}) {
			t.Errorf("both broken %v: count() = %v, want 3000", all, got)
		}
		if slices.Sort(*ran); !slices.Equal(*ran, tries[all]) {
			t.Errorf("both broken %v: fragments ran on %v, want %v", all, *ran, tries[all])
		}
	}
}

// TestPlaceWidensAcrossPieces checks a field that is a long in the first
// lines and a real further on, in another engine's piece: the query is
// planned again with the wider type and sums every value.
func TestPlaceWidensAcrossPieces(t *testing.T) {
	smallPieces(t)
	var b bytes.Buffer
	want := 0.0
	for i := range 20000 {
		if i < 10000 {
			fmt.Fprintf(&b, `{"_time":"2024-03-26T10:00:00Z","x":%d,"pad":"%s"}`+"\n", i, strings.Repeat("p", 20))
			want += float64(i)
		} else {
			fmt.Fprintf(&b, `{"_time":"2024-03-26T10:00:00Z","x":%d.5,"pad":"%s"}`+"\n", i, strings.Repeat("p", 20))
			want += float64(i) + 0.5
		}
	}
	data := b.Bytes()
	s := newTestSession(t)
	if _, err := s.OpenFile("w.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	withHelpers(t, s, "w.ndjson", data, 2, nil)
	res, err := s.Query(context.Background(), "['w'] | summarize sum(x)", QueryOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{strconv.Quote(strconv.FormatFloat(want, 'g', 9, 64))}) {
		t.Errorf("sum(x) = %v, want %v", got, want)
	}
}

// TestPlaceFindsLaterFields checks that a field missing from the first
// slice is looked for through the file, and that a misspelt one is an
// error naming it, looked for once.
func TestPlaceFindsLaterFields(t *testing.T) {
	smallPieces(t)
	var b bytes.Buffer
	for i := range 10000 {
		if i >= 9000 && i%10 == 0 {
			fmt.Fprintf(&b, `{"_time":"2024-03-26T10:00:00Z","n":%d,"error":{"stack":"at line %d"}}`+"\n", i, i)
		} else {
			fmt.Fprintf(&b, `{"_time":"2024-03-26T10:00:00Z","n":%d}`+"\n", i)
		}
	}
	data := b.Bytes()
	var reads atomic.Int64
	s := newTestSession(t)
	if _, err := s.OpenFile("late.ndjson", int64(len(data)), reader(data, &reads), testNow); err != nil {
		t.Fatal(err)
	}
	res, err := s.Query(context.Background(), "['late'] | where isnotempty(['error.stack']) | count", QueryOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{"100"}) {
		t.Errorf("count = %v, want 100", got)
	}
	if !slices.ContainsFunc(s.Datasets()[0].Fields, func(f Field) bool { return f.Name == "error.stack" }) {
		t.Errorf("the dataset's fields do not list error.stack: %v", s.Datasets()[0].Fields)
	}
	for run := range 2 {
		before := reads.Load()
		_, err = s.Query(context.Background(), "['late'] | where nn > 1 | count", QueryOptions{Now: testNow})
		var qe *db.QueryError
		if !errors.As(err, &qe) || !strings.Contains(qe.Msg, `"nn"`) {
			t.Fatalf("a misspelt field: %v, want a query error naming it", err)
		}
		if read := reads.Load() - before; run == 0 && read == 0 || run == 1 && read != 0 {
			t.Errorf("run %d of a misspelt field read the file %d times: want once through it, then never", run, read)
		}
	}
}

// TestPlaceReportsBadLines checks that lines that cannot be decoded are
// counted in the answer's messages, never silently left out.
func TestPlaceReportsBadLines(t *testing.T) {
	data := []byte(events + "{\"status\": 200,\n{not json}\n")
	s := newTestSession(t)
	if _, err := s.OpenFile("bad.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	res, err := s.Query(context.Background(), "['bad'] | summarize count()", QueryOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{"4"}) {
		t.Errorf("count() = %v, want 4", got)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), "2 lines could not be read") {
		t.Errorf("the answer does not say 2 lines failed: %s", b)
	}
}

// TestPlaceNotNDJSON checks that a file that is not NDJSON is refused
// when opened, with the decoder's reason.
func TestPlaceNotNDJSON(t *testing.T) {
	data := []byte("a,b\n1,2\n")
	s := newTestSession(t)
	if _, err := s.OpenFile("x.ndjson", int64(len(data)), reader(data, nil), testNow); err == nil || !strings.Contains(err.Error(), "not NDJSON") {
		t.Errorf("open a CSV as NDJSON: %v", err)
	}
	if _, err := s.OpenFile("x.csv", int64(len(data)), reader(data, nil), testNow); err == nil {
		t.Error("a .csv file was opened in place")
	}
}

// TestPlaceReplacedByLoad checks that loading a dataset of the same
// name replaces the file read in place, and that Drop forgets it.
func TestPlaceReplacedByLoad(t *testing.T) {
	data := []byte(events)
	s := newTestSession(t)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	if ds := s.Datasets(); len(ds) != 1 || !ds[0].InPlace || ds[0].Bytes != int64(len(data)) {
		t.Fatalf("datasets after open: %+v", ds)
	}
	mustLoad(t, s, "events", `{"_time":"2024-03-26T10:00:00Z","status":1}`, NDJSON)
	if got := rows(t, must(s.Query(context.Background(), "['events'] | count", QueryOptions{Now: testNow}))); !slices.Equal(got, []string{"1"}) {
		t.Errorf("after a load over it: count %v, want 1", got)
	}
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop("events"); err != nil {
		t.Fatal(err)
	}
	if ds := s.Datasets(); len(ds) != 0 {
		t.Errorf("datasets after drop: %+v", ds)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestPieceReaderLines checks that the pieces of a file hold each of its
// lines exactly once, wherever the cuts fall: lines longer than a slice,
// a last line without a newline, cuts on and next to line ends.
func TestPieceReaderLines(t *testing.T) {
	chunk := placeChunk
	placeChunk = 37
	t.Cleanup(func() { placeChunk = chunk })
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var b bytes.Buffer
		var want []string
		for i := range 1 + rng.IntN(30) {
			line := fmt.Sprintf(`{"i":%d,"s":"%s"}`, i, strings.Repeat("x", rng.IntN(100)))
			want = append(want, line)
			b.WriteString(line + "\n")
		}
		data := b.Bytes()
		if round%3 == 0 { // no newline after the last line
			data = data[:len(data)-1]
		}
		f := &placeFile{name: "t", size: int64(len(data)), read: reader(data, nil)}
		cuts := []int64{0, int64(len(data))}
		for range rng.IntN(6) {
			cuts = append(cuts, rng.Int64N(int64(len(data))+1))
		}
		slices.Sort(cuts)
		var got []string
		for i := 0; i+1 < len(cuts); i++ {
			rd := f.pieceReader(context.Background(), cuts[i], cuts[i+1], nil)
			for {
				c, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range strings.Split(strings.TrimSuffix(string(c.(*lineChunk).body), "\n"), "\n") {
					got = append(got, l)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, cuts %v:\n got %q\nwant %q", round, cuts, got, want)
		}
	}
}

// TestReadsInPlace tells the queries that read a file opened in place,
// which the browser's synchronous query refuses.
func TestReadsInPlace(t *testing.T) {
	data := []byte(events)
	s := newTestSession(t)
	mustLoad(t, s, "loaded", events, NDJSON)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]bool{"['events'] | count": true, "['loaded'] | count": false,
		"union ['loaded'], ['events']": true, "print 1": false} {
		if got := s.ReadsInPlace(q); got != want {
			t.Errorf("ReadsInPlace(%q) = %v, want %v", q, got, want)
		}
	}
}

// A query with a Prefix reads only the lines that start in the files'
// first bytes, here alone, and says its answer is partial: the console's
// first answer while a large file is read (issue 26). Without one, the
// same query counts every line and says nothing of the kind.
func TestPlacePrefixAnswersPartially(t *testing.T) {
	smallPieces(t)
	data := realEvents(3000)
	s := newTestSession(t)
	if _, err := s.OpenFile("events.ndjson", int64(len(data)), reader(data, nil), testNow); err != nil {
		t.Fatal(err)
	}
	ran := withHelpers(t, s, "events.ndjson", data, 2, nil)
	prefix := int64(len(data) / 10)
	want := bytes.Count(data[:bytes.IndexByte(data[prefix-1:], '\n')+int(prefix)], []byte("\n"))
	res, err := s.Query(context.Background(), "['events'] | summarize count()", QueryOptions{Now: testNow, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{strconv.Itoa(want)}) {
		t.Errorf("count() over the first %d bytes = %v, want %d", prefix, got, want)
	}
	if !res.Status.IsPartial || len(res.Status.Messages) == 0 || res.Status.Messages[0].Code != PartialCode {
		t.Errorf("a partial answer's status: isPartial %v, messages %+v", res.Status.IsPartial, res.Status.Messages)
	}
	if len(*ran) != 0 {
		t.Errorf("a partial answer sent fragments to %v", *ran)
	}
	res, err = s.Query(context.Background(), "['events'] | summarize count()", QueryOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{"3000"}) || res.Status.IsPartial || len(res.Status.Messages) != 0 {
		t.Errorf("the whole answer: %v, isPartial %v, messages %+v", got, res.Status.IsPartial, res.Status.Messages)
	}
	// A prefix past the end is the whole file: not partial.
	res, err = s.Query(context.Background(), "['events'] | summarize count()", QueryOptions{Now: testNow, Prefix: int64(len(data)) + 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(t, res); !slices.Equal(got, []string{"3000"}) || res.Status.IsPartial {
		t.Errorf("a prefix past the end: %v, isPartial %v", got, res.Status.IsPartial)
	}
}
