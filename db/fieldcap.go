package db

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// The field cap: a dataset holds at most the limit SetFieldLimit gives for
// it (the server's org license, maxFields) of distinct field names. As
// Axiom's limits page says, an event that would add a field past the
// limit is refused, and the rest of its request is stored: the refused
// events are counted in the answer's failed and listed in its failures
// with the reason, so nothing is dropped silently. A dataset of a hundred
// thousand fields is slow to read whole (every take reads every column),
// so the cap keeps queries fast as well as keeping the license.

// fieldCap remembers, per dataset, the field names it holds, so that
// checking a batch costs a lookup per column, not a walk of every block.
type fieldCap struct {
	mu    sync.Mutex
	limit func(dataset string) int
	known map[string]map[string]struct{}
}

// SetFieldLimit makes every later ingest into a dataset refuse the events
// that would give it more than limit(dataset) distinct field names; a
// limit of 0 or less (and a nil func, the default) is no cap. Call it
// before ingesting.
func (d *DB) SetFieldLimit(limit func(dataset string) int) {
	d.fields.mu.Lock()
	defer d.fields.mu.Unlock()
	d.fields.limit = limit
}

// forget drops what is remembered of a dataset whose fields may have
// shrunk (deleted, trimmed); the next ingest reads them again.
func (f *fieldCap) forget(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.known, name)
}

// admit enforces the cap on rows bound for ds: it returns the rows to
// store (rows itself when every event fits) and records the refused
// events in res. The names of admitted events are remembered before they
// are stored, so two batches appended at once cannot both take the last
// free field.
func (f *fieldCap) admit(ds *store.Dataset, rows *store.Rows, res *IngestResult) *store.Rows {
	f.mu.Lock()
	limit := f.limit
	f.mu.Unlock()
	if limit == nil || rows.N == 0 {
		return rows
	}
	max := limit(ds.Name()) // the caller's lookup, not under f.mu
	if max <= 0 {
		return rows
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	known := f.known[ds.Name()]
	if known == nil {
		known = map[string]struct{}{}
		for _, k := range ds.Info().Fields {
			known[k.Name] = struct{}{}
		}
		if f.known == nil {
			f.known = map[string]map[string]struct{}{}
		}
		f.known[ds.Name()] = known
	}
	var fresh []int // columns whose name the dataset does not hold yet
	names := map[string]bool{}
	for i, k := range rows.Keys {
		if _, ok := known[k.Name]; !ok {
			fresh = append(fresh, i)
			names[k.Name] = true
		}
	}
	if len(known)+len(names) <= max {
		for n := range names {
			known[n] = struct{}{}
		}
		return rows
	}
	return f.admitEach(rows, res, known, fresh, max)
}

// admitEach takes the events of rows in order, each while the new names
// it sets still fit under max, and returns the admitted ones.
func (f *fieldCap) admitEach(rows *store.Rows, res *IngestResult, known map[string]struct{}, fresh []int, max int) *store.Rows {
	keep := make([]int32, 0, rows.N)
	var adds []string
	for r := 0; r < rows.N; r++ {
		adds = adds[:0]
		for _, c := range fresh {
			n := rows.Keys[c].Name
			if _, ok := known[n]; ok || rows.Cols[c].IsNull(r) || containsName(adds, n) {
				continue
			}
			adds = append(adds, n)
		}
		if len(known)+len(adds) > max {
			refuse(res, adds, len(known), max)
			res.Refused = append(res.Refused, r)
			continue
		}
		for _, n := range adds {
			known[n] = struct{}{}
		}
		keep = append(keep, int32(r))
	}
	out := &store.Rows{N: len(keep), SysTime: rows.SysTime, Time: make([]int64, len(keep))}
	for j, r := range keep {
		out.Time[j] = rows.Time[r]
	}
	for c, k := range rows.Keys {
		if _, ok := known[k.Name]; !ok {
			continue // set only by refused events
		}
		out.Keys = append(out.Keys, k)
		out.Cols = append(out.Cols, rows.Cols[c].Gather(keep))
	}
	return out
}

func containsName(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// refuse counts one event refused by the cap and says why, naming the
// first of the fields it would have added.
func refuse(res *IngestResult, adds []string, have, max int) {
	res.Ingested--
	res.Failed++
	if len(res.Failures) >= ingest.DefaultMaxFailures {
		return
	}
	shown := adds
	more := ""
	if len(shown) > 3 {
		shown, more = shown[:3], fmt.Sprintf(" and %d more", len(adds)-3)
	}
	res.Failures = append(res.Failures, Failure{Timestamp: time.Now().UTC(), Error: fmt.Sprintf(
		"event refused: its new fields %s%s would take the dataset past its limit of %d fields (maxFields; it has %d): map fields or fewer distinct names keep it under",
		quoteNames(shown), more, max, have)})
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
