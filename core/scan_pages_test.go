package core

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// realisticPagedDB holds one block of n realistic access-log events (the
// benchmarks' generator, with its free-text message), the rare word put
// into the messages of the given rows.
func realisticPagedDB(n int, rare ...int) (*Engine, error) {
	db := store.OpenMemory(pagedOptions(n))
	ds, err := db.Create("logs")
	if err != nil {
		return nil, err
	}
	if err := fillPaged(ds, n, rare...); err != nil {
		return nil, err
	}
	return NewEngine(exec.StoreCatalog(db)), nil
}

// pagedOptions make the n events appended at once one block with paged
// free-text columns and term filters.
func pagedOptions(n int) store.Options {
	return store.Options{NoSync: true, SealRows: n, FlushRows: n}
}

// fillPaged appends n realistic events to ds as one block, the rare word
// in the messages of the given rows, and checks that the message column
// is paged by granule.
func fillPaged(ds *store.Dataset, n int, rare ...int) error {
	at := map[int]bool{}
	for _, r := range rare {
		at[r] = true
	}
	g := gen.NewWith(7, gen.Options{Shape: gen.Real, EventsPerDay: n})
	b := store.NewRowsBuilder()
	for i := 0; i < n; i++ {
		e := g.Event()
		if at[i] {
			e["message"] = fmt.Sprint(e["message"], " ", gen.RareWord)
		}
		b.Begin()
		if err := setEvent(b, e); err != nil {
			return err
		}
		b.End(0)
	}
	if _, err := ds.Append(b.Finish(0)); err != nil {
		return err
	}
	if err := ds.Flush(); err != nil {
		return err
	}
	snap := ds.Snapshot()
	defer snap.Release()
	if len(snap.Parts) != 1 {
		return fmt.Errorf("%d parts, want one block", len(snap.Parts))
	}
	pp, ok := snap.Parts[0].(store.PagedPart)
	if !ok || pp.PageRows(store.ColKey{Name: "message", Type: vector.String}) != exec.TermGranuleRows {
		return fmt.Errorf("the message column is not paged by granule")
	}
	return nil
}

// setEvent adds one generated event's fields to the builder.
func setEvent(b *store.RowsBuilder, e map[string]any) error {
	for k, v := range e {
		switch x := v.(type) {
		case string:
			if k == store.TimeField {
				tm, err := time.Parse(time.RFC3339Nano, x)
				if err != nil {
					return err
				}
				b.SetTime(tm.UnixNano())
				continue
			}
			b.SetString(k, x)
		case int64:
			b.SetInt(k, x)
		case float64:
			b.SetFloat(k, x)
		case bool:
			b.SetBool(k, x)
		case nil:
			b.SetNull(k)
		default:
			b.SetDynamic(k, x)
		}
	}
	return nil
}

// pagedEngine is the one realistic paged block the tests share (building
// it takes seconds): the rare word in granules 0 and 4 of 8.
var pagedEngine = sync.OnceValues(func() (*Engine, error) {
	g := exec.TermGranuleRows
	return realisticPagedDB(7*g+3000, 10, 4*g+77, 4*g+78)
})

func sharedPaged(t *testing.T) *Engine {
	t.Helper()
	e, err := pagedEngine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func noColumnCache(r *exec.Request) { r.DisableCache, r.NoColumnCache = true, true }

// A rare word in two granules of a multi-page block decodes the message
// pages of those granules (one more when a Bloom filter lets a granule
// through), not the column, and answers what a full scan answers; the
// pages then come from the column cache.
func TestRareWordReadsOnlyItsPages(t *testing.T) {
	e := sharedPaged(t)
	// "or false" hides the test from the term filters: a full scan.
	full := "['logs'] | where message has 'deadlock' or false"
	paged := "['logs'] | where message has 'deadlock'"
	shape := " | project _time, id, uri, message, status | sort by _time asc"
	noCache := func(r *exec.Request) { r.DisableCache, r.NoColumnCache = true, true }

	want := mustQuery(t, e, full+shape, noCache)
	if want.Stats.PagesDecoded != 0 {
		t.Fatalf("a full scan decoded %d pages, want whole columns", want.Stats.PagesDecoded)
	}
	if want.NumRows() < 3 {
		t.Fatalf("full scan found %d rows, want the 3 put there at least", want.NumRows())
	}
	got := mustQuery(t, e, paged+shape, noCache)
	if !reflect.DeepEqual(rows(got), rows(want)) {
		t.Fatalf("paged scan answers\n%v\nfull scan\n%v", rows(got), rows(want))
	}
	// Two granules, three paged columns read (message, id; uri repeats
	// and stays whole), one granule more for a false positive.
	if p := got.Stats.PagesDecoded; p < 2 || p > 3*2 {
		t.Fatalf("decoded %d pages, want those of 2 granules (one more allowed) of 8", p)
	}

	cached := mustQuery(t, e, paged+shape)
	first := cached.Stats.PagesDecoded
	again := mustQuery(t, e, paged+shape)
	if again.Stats.PagesDecoded != 0 || !reflect.DeepEqual(rows(again), rows(want)) {
		t.Fatalf("second run decoded %d pages (first %d), answers equal: %v", again.Stats.PagesDecoded, first, reflect.DeepEqual(rows(again), rows(want)))
	}
}

// A narrow time window inside a paged block decodes the pages under it.
func TestTimeWindowReadsOnlyItsPages(t *testing.T) {
	e := sharedPaged(t)
	every := func(r *exec.Request) { r.DefaultLimit = -1 } // all times, not the default 1000
	ts := mustQuery(t, e, "['logs'] | sort by _time asc | project _time", noColumnCache, every)
	lo, hi := ts.Value(2*exec.TermGranuleRows+100, 0), ts.Value(2*exec.TermGranuleRows+900, 0)
	q := fmt.Sprintf("['logs'] | where _time >= datetime(%v) and _time < datetime(%v)", lo, hi)
	shape := " | project _time, message | sort by _time asc"
	got := mustQuery(t, e, q+shape, noColumnCache)
	want := mustQuery(t, e, q+" or false"+shape, noColumnCache)
	if !reflect.DeepEqual(rows(got), rows(want)) || got.NumRows() == 0 {
		t.Fatalf("window answers %d rows, full scan %d", got.NumRows(), want.NumRows())
	}
	if p := got.Stats.PagesDecoded; p < 1 || p > 2 {
		t.Fatalf("decoded %d pages for a window inside one granule", p)
	}
}

// The winners of a top read their message from the pages holding them,
// and equal what a scan that reads the whole column returns.
func TestTopReadsWinnersPages(t *testing.T) {
	e := sharedPaged(t)
	noCache := func(r *exec.Request) { r.DisableCache, r.NoColumnCache = true, true }
	got := mustQuery(t, e, "['logs'] | where status >= 500 | top 3 by resp_body_size desc | project _time, resp_body_size, message", noCache)
	// extend reads message in the scan, for every row: the whole column.
	want := mustQuery(t, e, "['logs'] | where status >= 500 | extend m = message | top 3 by resp_body_size desc | project _time, resp_body_size, message = m", noCache)
	if !reflect.DeepEqual(rows(got), rows(want)) {
		t.Fatalf("top answers\n%v\nwhole-column read\n%v", rows(got), rows(want))
	}
	if p := got.Stats.PagesDecoded; p < 1 || p > 3 {
		t.Fatalf("top 3 decoded %d message pages, want at most one per winner", p)
	}
	if want.Stats.PagesDecoded != 0 {
		t.Fatalf("the whole-column read decoded %d pages", want.Stats.PagesDecoded)
	}
}
