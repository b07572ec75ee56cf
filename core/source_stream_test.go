package core

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// memStream is a TableStream over NDJSON chunks held in memory; it counts
// the reads opened and the chunks decoded. With stats set, each chunk
// offers its min/max statistics and fields declares the columns.
type memStream struct {
	chunks  []string
	stats   bool
	fields  []store.ColKey
	opened  atomic.Int64
	decoded atomic.Int64
}

func (m *memStream) Fields() []store.ColKey { return m.fields }

func (m *memStream) Open() (exec.ChunkReader, error) {
	m.opened.Add(1)
	return &memReader{m: m}, nil
}

type memReader struct {
	m *memStream
	i int
}

func (r *memReader) Next() (exec.Chunk, error) {
	if r.i == len(r.m.chunks) {
		return nil, io.EOF
	}
	r.i++
	return memChunk{m: r.m, body: r.m.chunks[r.i-1]}, nil
}

func (r *memReader) Close() error { return nil }

type memChunk struct {
	m    *memStream
	body string
}

func (c memChunk) decode() (*store.Rows, error) {
	b := store.NewRowsBuilder()
	if _, err := ingest.Decode([]byte(c.body), ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b); err != nil {
		return nil, err
	}
	return b.Finish(fixtureNow.UnixNano()), nil
}

func (c memChunk) Decode() (*store.Rows, error) {
	c.m.decoded.Add(1)
	return c.decode()
}

// Stats computes the chunk's min/max without counting it as decoded, as a
// Parquet footer gives them.
func (c memChunk) Stats() store.Part {
	if !c.m.stats {
		return nil
	}
	rows, err := c.decode()
	if err != nil {
		return nil
	}
	return statsPart{rows: rows, Part: store.NewRowsPart("stats", rows)}
}

// statsPart adds min/max statistics to a rows part.
type statsPart struct {
	store.Part
	rows *store.Rows
}

func (s statsPart) Columns() []store.ColumnMeta {
	out := s.Part.Columns()
	for i := range out {
		v := s.rows.Column(out[i].Key)
		if v == nil || (v.Type != vector.Int && v.Type != vector.Float) {
			continue
		}
		for j := 0; j < v.Len; j++ {
			var x any
			if v.Type == vector.Int {
				x = v.Ints[j]
			} else {
				x = v.Floats[j]
			}
			if c, _ := exec.CompareAny(x, out[i].Min); out[i].Min == nil || c < 0 {
				out[i].Min = x
			}
			if c, _ := exec.CompareAny(x, out[i].Max); out[i].Max == nil || c > 0 {
				out[i].Max = x
			}
		}
	}
	return out
}

func (s statsPart) ReadColumn(store.ColKey) (*vector.Vector, error) {
	panic("the scan read a column of a statistics part")
}

// event renders one NDJSON line; fields are given as `"k":v` pairs.
func event(i int, fields ...string) string {
	tm := fixtureNow.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
	return fmt.Sprintf(`{"_time":%q,%s}`+"\n", tm, strings.Join(fields, ","))
}

// mixedChunks are chunks whose types change on the way: dur is long in the
// first chunk and real later, code is long then a string, and region
// appears only in the last chunk.
func mixedChunks() []string {
	var chunks []string
	methods := []string{"GET", "POST", "PUT"}
	for c := range 4 {
		var sb strings.Builder
		for i := range 50 {
			n := c*50 + i
			f := []string{fmt.Sprintf(`"method":%q`, methods[n%3]), fmt.Sprintf(`"status":%d`, 200+100*(n%4))}
			switch {
			case c == 0:
				f = append(f, fmt.Sprintf(`"dur":%d`, n%17))
			case n%5 != 0: // missing now and then
				f = append(f, fmt.Sprintf(`"dur":%d.5`, n%13))
			}
			if c < 2 {
				f = append(f, fmt.Sprintf(`"code":%d`, n%7))
			} else {
				f = append(f, fmt.Sprintf(`"code":"c%d"`, n%7))
			}
			if c == 3 {
				f = append(f, fmt.Sprintf(`"region":"r%d"`, n%2))
			}
			sb.WriteString(event(n, f...))
		}
		chunks = append(chunks, sb.String())
	}
	return chunks
}

// storedEngine loads the chunks into a dataset, one append per chunk, the
// way the load path stores a file.
func storedEngine(t *testing.T, name string, chunks []string) *Engine {
	t.Helper()
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		rows, err := memChunk{m: &memStream{}, body: c}.decode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ds.Append(rows); err != nil {
			t.Fatal(err)
		}
	}
	return NewEngine(exec.StoreCatalog(db))
}

// answer renders a result's columns and rows: the totals tables list
// their groups in the order the parallel workers met them.
func answer(r *output.Output) string {
	names, types := r.Columns()
	return fmt.Sprint(names, types, rows(r))
}

func TestStreamAnswersLikeStore(t *testing.T) {
	chunks := mixedChunks()
	stored := storedEngine(t, "logs", chunks)
	queries := []string{
		"logs | count",
		"logs | summarize count() by status | sort by status",
		"logs | summarize avg(dur), sum(dur), count() by method | sort by method",
		"logs | where dur > 5 | count",
		"logs | summarize count() by tostring(code) | sort by code asc",
		"logs | summarize max(_time), min(_time)",
		"logs | project _time, method, dur, code | sort by _time asc",
		"logs | where status == 500 or status == 300 | summarize count() by method | sort by method",
		"logs | summarize c = count() by method, bin(_time, 1m) | sort by method, _time asc",
	}
	for _, q := range queries {
		want := answer(mustQuery(t, stored, q))
		ms := &memStream{chunks: chunks}
		e := NewEngine(nil)
		got := answer(mustQuery(t, e, q, func(r *exec.Request) {
			r.Streams = map[string]exec.TableStream{"logs": ms}
		}))
		if got != want {
			t.Errorf("%s:\n stream %s\n stored %s", q, got, want)
		}
		// dur and code widen after the first chunk, code again in the
		// third and region is new in the last: one to three restarts,
		// as the parallel workers see them together or one by one.
		if n := ms.opened.Load(); n < 2 || n > 4 {
			t.Errorf("%s: opened %d reads, want 2 to 4", q, n)
		}
	}
}

func TestStreamTakeStopsEarly(t *testing.T) {
	var chunks []string
	for c := range 40 {
		var sb strings.Builder
		for i := range 10 {
			sb.WriteString(event(c*10+i, `"status":200`))
		}
		chunks = append(chunks, sb.String())
	}
	ms := &memStream{chunks: chunks}
	res := mustQuery(t, NewEngine(nil), "logs | project status | take 5", func(r *exec.Request) {
		r.Streams = map[string]exec.TableStream{"logs": ms}
		r.Workers = 2
	})
	if res.NumRows() != 5 {
		t.Fatalf("take 5 gave %d rows", res.NumRows())
	}
	if n := ms.decoded.Load(); n > 3 {
		t.Errorf("take 5 decoded %d of 40 chunks, want at most one per worker and the planner's", n)
	}
}

func TestStreamSkipsChunksByStatistics(t *testing.T) {
	var chunks []string
	for c := range 8 {
		var sb strings.Builder
		for i := range 20 {
			sb.WriteString(event(c*20+i, fmt.Sprintf(`"status":%d`, 100*(c+1)+i), fmt.Sprintf(`"s":"v%d"`, c)))
		}
		chunks = append(chunks, sb.String())
	}
	fields := []store.ColKey{{Name: "status", Type: vector.Int}, {Name: "s", Type: vector.String}}
	stored := storedEngine(t, "logs", chunks)
	cases := []struct {
		q       string
		decoded int64
	}{
		{"logs | where status == 99999 | count", 0},
		{"logs | where status > 5000 | count", 0},
		{"logs | where status < 100 or status >= 900 | count", 0},
		{"logs | where status in (50, 60, 70) | count", 0},
		{"logs | where status == 305 | count", 1},
		{"logs | where status in (105, 810) | count", 2},
		{"logs | where status >= 800 and s == 'v7' | count", 1},
		{"logs | where status <= 219 | count", 2},
		{"logs | where s == 'v3' | count", 8}, // no string statistics: every chunk read
	}
	for _, c := range cases {
		ms := &memStream{chunks: chunks, stats: true, fields: fields}
		res := mustQuery(t, NewEngine(nil), c.q, func(r *exec.Request) {
			r.Streams = map[string]exec.TableStream{"logs": ms}
		})
		if got, want := answer(res), answer(mustQuery(t, stored, c.q)); got != want {
			t.Errorf("%s: stream %s, stored %s", c.q, got, want)
		}
		if n := ms.decoded.Load(); n != c.decoded {
			t.Errorf("%s: decoded %d chunks, want %d", c.q, n, c.decoded)
		}
		if res.Stats.BlocksExamined != 8 || res.Stats.BlocksMatched != c.decoded {
			t.Errorf("%s: examined %d matched %d chunks, want 8 and %d", c.q, res.Stats.BlocksExamined, res.Stats.BlocksMatched, c.decoded)
		}
	}
}

// flipStream's every read widens a type again, so the query never settles.
type flipStream struct{ n atomic.Int64 }

func (f *flipStream) Fields() []store.ColKey { return []store.ColKey{{Name: "x", Type: vector.Null}} }

func (f *flipStream) Open() (exec.ChunkReader, error) {
	k := f.n.Add(1)
	return &memReader{m: &memStream{chunks: []string{event(0, fmt.Sprintf(`"x":1,"f%d":1`, k))}}}, nil
}

func TestStreamGivesUpOnEndlessWidening(t *testing.T) {
	_, err := query(t, NewEngine(nil), "logs | count", func(r *exec.Request) {
		r.Streams = map[string]exec.TableStream{"logs": &flipStream{}}
	})
	if !errors.Is(err, exec.ErrStreamSchema) {
		t.Fatalf("got %v, want ErrStreamSchema", err)
	}
}

func TestStreamUnknownFieldIsAnError(t *testing.T) {
	_, err := query(t, NewEngine(nil), "logs | summarize count() by nosuch", func(r *exec.Request) {
		r.Streams = map[string]exec.TableStream{"logs": &memStream{chunks: mixedChunks()}}
	})
	var qe *exec.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("got %v, want a QueryError", err)
	}
}

// A summarize over a stream keeps copies of its keys, not the decoded
// chunks they came from: decoders put a chunk's strings in shared
// buffers, and a group key pointing into one kept the buffer alive, so a
// query whose every chunk brings a new key held most of the input.
func TestStreamGroupKeysDoNotPinChunks(t *testing.T) {
	var chunks []string
	for c := range 100 {
		var sb strings.Builder
		for i := range 2000 {
			fmt.Fprintf(&sb, "{\"k\":\"common-%02d-%s\"}\n", i%50, strings.Repeat("x", 40))
		}
		fmt.Fprintf(&sb, "{\"k\":\"unique-%d\"}\n", c)
		chunks = append(chunks, sb.String())
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// The heap is the whole process's: a goroutine another test left
	// running (a cancelled query winding down) can hold megabytes while
	// this one measures. Pinned chunks grow the heap on every attempt,
	// so the least growth of three is the query's own.
	least := int64(math.MaxInt64)
	for range 3 {
		e := NewEngine(nil)
		before := heap()
		res := mustQuery(t, e, "logs | summarize count() by k", func(r *exec.Request) {
			r.Streams = map[string]exec.TableStream{"logs": &memStream{chunks: chunks}}
		})
		held := heap()
		if res.NumRows() != 150 {
			t.Fatalf("%d groups, want 150", res.NumRows())
		}
		least = min(least, int64(held)-int64(before))
		runtime.KeepAlive(res)
		runtime.KeepAlive(e)
		if least <= 2<<20 {
			break
		}
	}
	if least > 2<<20 {
		t.Errorf("the result of 150 groups holds %d KiB of heap", least>>10)
	}
	runtime.KeepAlive(chunks)
}
