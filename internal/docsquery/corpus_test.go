package docsquery

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Every documented query runs (issue 14): each query of Axiom's APL docs,
// on generated data of its dataset's shape, both tidy and messy, answers
// without an error, a panic or a hang, unless testdata/skip.txt says why
// it cannot. A skipped query that starts to pass fails the test too, so
// the skip list only ever shrinks.

// docsEvents is the size of each generated dataset: enough for every
// group, bin and top N to see several values, small enough that the
// corpus runs in seconds.
const docsEvents = 2000

// queryTimeout bounds one query: the data is tiny, so anything slower is
// a hang.
const queryTimeout = 10 * time.Second

var report = flag.String("docsquery.report", "", "write every failing query (id, variant, error) to this file")

func TestDocumentedQueriesRun(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	queries, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	skips, err := readSkips(filepath.Join("testdata", "skip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, q := range queries {
		known[q.ID] = true
	}
	for id := range skips {
		if !known[strings.TrimSuffix(id, "@messy")] {
			t.Errorf("skip.txt: %s is not a query of queries.jsonl", id)
		}
	}
	var failures []string
	for _, v := range []gen.Variant{gen.DocsTidy, gen.DocsMessy} {
		eng := core.NewEngine(core.StoreCatalog(docsDB(t, v)))
		ok, skipped := 0, map[string]int{}
		var slowest time.Duration
		slowID := ""
		for _, q := range queries {
			start := time.Now()
			err := run(eng, q.APL)
			if d := time.Since(start); d > slowest {
				slowest, slowID = d, q.ID
			}
			reason, skip := skips[q.ID]
			if !skip && v == gen.DocsMessy {
				reason, skip = skips[q.ID+"@messy"]
			}
			switch {
			case err == nil && skip:
				hint := ""
				if v == gen.DocsTidy {
					hint = ", or list it as " + q.ID + "@messy if the messy data still fails it"
				}
				t.Errorf("%s (%s:%d) now runs on %s data: take it off skip.txt%s (%s)", q.ID, q.Page, q.Line, v, hint, reason)
			case err == nil:
				ok++
			case skip:
				skipped[reason]++
			default:
				t.Errorf("%s (%s:%d) fails on %s data: %v\n%s", q.ID, q.Page, q.Line, v, err, q.APL)
			}
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s\t%s\t%s", q.ID, v, strings.ReplaceAll(err.Error(), "\n", " ")))
			}
		}
		t.Logf("%s data: %d of %d queries run, %d skipped; slowest %s (%v)", v, ok, len(queries), sum(skipped), slowID, slowest.Round(time.Millisecond))
		for _, r := range sortedKeys(skipped) {
			t.Logf("  %4d skipped: %s", skipped[r], r)
		}
	}
	if *report != "" {
		if err := os.WriteFile(*report, []byte(strings.Join(failures, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs one query; a panic or a query that outlives queryTimeout is an
// error like any other.
func run(eng *core.Engine, apl string) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		_, err := eng.Query(ctx, &core.Request{APL: apl, Now: gen.DocsNow, Workers: 1, ExternalData: noExternalData})
		done <- err
	}()
	select {
	case err = <-done:
		return err
	case <-time.After(queryTimeout + 5*time.Second):
		// The engine did not stop at the deadline: report the hang and
		// leave the goroutine behind (the test fails anyway).
		return errors.New("hang: no answer after the query timeout")
	}
}

// noExternalData serves every externaldata URL (all example.com
// addresses in the docs) as an empty document: the test has no network,
// and the queries still plan and run their lookups over empty tables.
func noExternalData(url string) ([]byte, error) { return nil, nil }

// docsDB loads every docs dataset, in variant v, into an in-memory store,
// in two appends so queries cross parts; the messy variant is flushed to
// blocks.
func docsDB(t *testing.T, v gen.Variant) *store.DB {
	t.Helper()
	db := store.OpenMemory(store.Options{NoSync: true})
	t.Cleanup(func() { db.Close() })
	now := gen.DocsNow.UnixNano()
	for _, d := range gen.DocsDatasets() {
		ds, err := db.Create(d.Name)
		if err != nil {
			t.Fatal(err)
		}
		maps := map[string]bool{}
		for _, f := range d.MapFields {
			maps[f] = true
		}
		body := d.NDJSON(1, docsEvents, v)
		half := len(body) / 2
		half += strings.IndexByte(string(body[half:]), '\n') + 1
		for _, part := range [][]byte{body[:half], body[half:]} {
			b := store.NewRowsBuilder()
			res, err := ingest.Decode(part, ingest.Options{Format: ingest.NDJSON, Now: now, MapFields: maps}, b)
			if err != nil || res.Failed > 0 {
				t.Fatalf("%s: ingest: %v %+v", d.Name, err, res.Failures)
			}
			rows := b.Finish(now)
			for _, f := range d.Timespans {
				toTimespan(t, rows, f)
			}
			if _, err := ds.Append(rows); err != nil {
				t.Fatal(err)
			}
		}
		// The messy data is read from compressed blocks, the tidy data
		// from in-memory parts: both read paths answer the corpus.
		if v == gen.DocsMessy {
			if err := ds.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db
}

// toTimespan turns the string column field of rows (Go duration text)
// into a timespan column, the type Axiom's OTLP ingest gives a span's
// duration.
func toTimespan(t *testing.T, rows *store.Rows, field string) {
	for i, k := range rows.Keys {
		if k.Name != field || k.Type != vector.String {
			continue
		}
		src := rows.Cols[i]
		dst := vector.New(vector.TimeSpan, rows.N)
		for r := range rows.N {
			if src.IsNull(r) {
				dst.AppendNull()
				continue
			}
			d, err := time.ParseDuration(src.Str(r))
			if err != nil {
				t.Fatalf("%s: %v", field, err)
			}
			dst.AppendInt(int64(d))
		}
		rows.Keys[i].Type, rows.Cols[i] = vector.TimeSpan, dst
	}
}

// readSkips reads skip.txt: "## reason" lines start a group, every other
// non-blank line that is not a "#" comment is a query id (with "@messy"
// when only the messy data fails it), optionally followed by a note.
func readSkips(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	reason := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			reason = strings.TrimSpace(line[3:])
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			if reason == "" {
				return nil, fmt.Errorf("%s:%d: a query before the first ## reason", path, n)
			}
			id := strings.Fields(line)[0]
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("%s:%d: %s listed twice", path, n, id)
			}
			out[id] = reason
		}
	}
	return out, sc.Err()
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return m[out[i]] > m[out[j]] || m[out[i]] == m[out[j]] && out[i] < out[j] })
	return out
}
