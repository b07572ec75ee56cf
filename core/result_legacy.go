package core

import (
	"fmt"
	"time"

	"github.com/aplite/aplite/core/store"
)

// Legacy renders the result in the legacy format: raw events become
// matches; an aggregation becomes buckets (a leading time bin turns into
// the series, the other keys into each entry's group).
func (r *Result) Legacy() *LegacyResult {
	out := &LegacyResult{
		Format:        "legacy",
		Status:        r.status(),
		Matches:       []LegacyEntry{},
		Buckets:       LegacyBuckets{Series: []LegacyInterval{}, Totals: []LegacyEntryGroup{}},
		DatasetNames:  r.datasetNames(),
		FieldsMetaMap: r.fieldsMeta(),
	}
	out.Request = r.legacyRequest()
	sum := r.summarize()
	if sum == nil {
		out.Matches = r.matches()
		return out
	}
	if sum.timeKey < 0 {
		out.Buckets.Totals = r.entryGroups(r.sch, r.b, sum, nil)
		return out
	}
	out.Buckets.Series = r.series(sum)
	if tb, ts := sum.totals(r.x); tb != nil {
		out.Buckets.Totals = r.entryGroups(ts, tb, sum, nil)
	}
	return out
}

func (r *Result) legacyRequest() *LegacyRequest {
	rg := r.rangeRef()
	req := &LegacyRequest{StartTime: rg.Start, EndTime: rg.End, Resolution: "auto", Limit: 1000,
		Aggregations: []LegacyAggSpec{}, GroupBy: []string{}, Order: r.order(), VirtualFields: []any{}, Project: []any{}}
	if sum := r.summarize(); sum != nil {
		for _, a := range sum.aggs {
			req.Aggregations = append(req.Aggregations, LegacyAggSpec{Op: apiAggName(a.spec), Field: "*", Alias: a.names[0]})
		}
		for i, k := range sum.keyNames {
			if i == sum.timeKey {
				req.Resolution = time.Duration(sum.binSize).String()
				continue
			}
			req.GroupBy = append(req.GroupBy, k)
		}
	}
	return req
}

// matches renders raw rows as legacy entries.
func (r *Result) matches() []LegacyEntry {
	out := make([]LegacyEntry, 0, r.b.n)
	ti, si := r.sch.index(store.TimeField), r.sch.index(store.SysTimeField)
	for i := 0; i < r.b.n; i++ {
		e := LegacyEntry{Data: map[string]any{}}
		for j, c := range r.sch {
			v := jsonCell(r.b.vecs[j], i)
			switch j {
			case ti:
				e.Time, _ = v.(string)
			case si:
				e.SysTime, _ = v.(string)
			default:
				if v != nil {
					e.Data[c.Name] = v
				}
			}
		}
		if e.SysTime == "" {
			e.SysTime = e.Time
		}
		e.RowID = fmt.Sprintf("%s-%d", e.Time, i)
		out = append(out, e)
	}
	return out
}

// entryGroups renders aggregation rows as legacy entry groups; the
// columns named like summarize keys (except the time key) form the group.
func (r *Result) entryGroups(sch schema, b *batch, sum *summarizeStage, rows []int) []LegacyEntryGroup {
	isKey := map[string]bool{}
	for i, k := range sum.keyNames {
		if i != sum.timeKey {
			isKey[k] = true
		}
	}
	if rows == nil {
		for i := 0; i < b.n; i++ {
			rows = append(rows, i)
		}
	}
	out := []LegacyEntryGroup{}
	for _, i := range rows {
		g := LegacyEntryGroup{Group: map[string]any{}, Aggregations: []LegacyAggValue{}}
		for j, c := range sch {
			if j < len(sum.keyNames) && c.Name == sum.keyNames[j] && sum.timeKey == j {
				continue
			}
			v := jsonCell(b.vecs[j], i)
			if isKey[c.Name] {
				g.Group[c.Name] = v
			} else {
				g.Aggregations = append(g.Aggregations, LegacyAggValue{Op: c.Name, Value: v})
			}
		}
		g.ID = groupID(g.Group)
		out = append(out, g)
	}
	return out
}

// groupID is a stable id for a group's key values, equal in series and totals.
func groupID(g map[string]any) uint64 {
	h := uint64(14695981039346656037)
	for _, k := range sortedKeys(g) {
		for _, c := range []byte(k + "=" + valueString(g[k]) + ";") {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return h
}

// series splits a time-bucketed result into one interval per bucket.
func (r *Result) series(sum *summarizeStage) []LegacyInterval {
	out := []LegacyInterval{}
	tv := r.b.vecs[sum.timeKey]
	var cur []int
	var curT int64
	flush := func() {
		if len(cur) == 0 {
			return
		}
		out = append(out, LegacyInterval{
			StartTime: formatTime(curT),
			EndTime:   formatTime(curT + sum.binSize),
			Groups:    r.entryGroups(r.sch, r.b, sum, cur),
		})
		cur = nil
	}
	for i := 0; i < r.b.n; i++ {
		t := tv.Int(i)
		if len(cur) > 0 && t != curT {
			flush()
		}
		curT = t
		cur = append(cur, i)
	}
	flush()
	return out
}
