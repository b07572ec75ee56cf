package store

import (
	"fmt"
	"math"
	"testing"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// event is one row as a map from field key to boxed value (nil = null).
type event struct {
	time   int64
	fields map[ColKey]any
}

// eventsOf flattens a part into events, in row order.
func eventsOf(t testing.TB, p Part) []event {
	t.Helper()
	tv, err := p.ReadColumn(timeKey)
	if err != nil {
		t.Fatalf("read _time of %s: %v", p.ID(), err)
	}
	out := make([]event, p.Rows())
	for i := range out {
		out[i] = event{time: tv.Int(i), fields: map[ColKey]any{}}
	}
	for _, m := range p.Columns() {
		if m.Key == timeKey || m.Key == sysTimeKey {
			continue
		}
		v, err := p.ReadColumn(m.Key)
		if err != nil {
			t.Fatalf("read %v of %s: %v", m.Key, p.ID(), err)
		}
		if v.Len != p.Rows() {
			t.Fatalf("column %v has %d rows, part has %d", m.Key, v.Len, p.Rows())
		}
		for i := range out {
			if !v.IsNull(i) {
				out[i].fields[m.Key] = v.Value(i)
			}
		}
	}
	return out
}

// eventsOfRows flattens a Rows batch the same way.
func eventsOfRows(r *Rows) []event {
	out := make([]event, r.N)
	for i := range out {
		out[i] = event{time: r.Time[i], fields: map[ColKey]any{}}
		for c, k := range r.Keys {
			if v := r.Cols[c]; !v.IsNull(i) {
				out[i].fields[k] = v.Value(i)
			}
		}
	}
	return out
}

func eventEqual(a, b event) bool {
	if a.time != b.time || len(a.fields) != len(b.fields) {
		return false
	}
	for k, x := range a.fields {
		y, ok := b.fields[k]
		if !ok || !testutil.SameValue(x, y) {
			return false
		}
	}
	return true
}

func (e event) String() string { return fmt.Sprintf("{t=%d %v}", e.time, e.fields) }

// snapshotEvents returns every event of a snapshot.
func snapshotEvents(t testing.TB, s *Snapshot) []event {
	var all []event
	for _, p := range s.Parts {
		all = append(all, eventsOf(t, p)...)
	}
	return all
}

// mixedRows builds a batch exercising every type, nulls, edge values and a
// field whose type changes between events.
func mixedRows(n int, base int64) *Rows {
	b := NewRowsBuilder()
	for i := 0; i < n; i++ {
		b.Begin()
		b.SetTime(base + int64((i*7919)%n)*1e6) // out of order
		switch i % 5 {
		case 0:
			b.SetInt("status", 200)
			b.SetString("msg", "")
			b.SetFloat("dur", math.NaN())
			b.SetInt("big", math.MinInt64)
		case 1:
			b.SetString("status", "OK") // type change
			b.SetString("msg", "héllo wörld ✓ 日本")
			b.SetFloat("dur", math.Inf(1))
			b.SetInt("big", math.MaxInt64)
			b.SetBool("tls", true)
		case 2:
			b.SetNull("status")
			b.SetFloat("dur", math.Inf(-1))
			b.SetDynamic("tags", []any{"a", int64(1), 2.5, nil, map[string]any{"k": []any{true}}})
			b.SetBool("tls", false)
		case 3:
			b.SetFloat("dur", float64(i)/8)
			b.SetDynamic("tags", map[string]any{"x": map[string]any{"y": "z"}, "n": int64(-3)})
			b.SetString("msg", fmt.Sprintf("m%d", i))
		case 4:
			b.SetFloat("dur", math.Copysign(0, -1))
			b.SetString("id", fmt.Sprintf("%032x", uint64(i)*0x9e3779b97f4a7c15))
		}
		b.End(base)
	}
	return b.Finish(base + 1)
}

// sameEvents checks that got and want hold the same events as multisets.
func sameEvents(t testing.TB, got, want []event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	used := make([]bool, len(got))
	byTime := map[int64][]int{}
	for i, e := range got {
		byTime[e.time] = append(byTime[e.time], i)
	}
outer:
	for _, w := range want {
		for _, i := range byTime[w.time] {
			if !used[i] && eventEqual(got[i], w) {
				used[i] = true
				continue outer
			}
		}
		t.Fatalf("missing event %v", w)
	}
}

var _ = vector.Null
