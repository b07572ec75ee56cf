package render

import (
	"fmt"
	"sort"
	"time"

	"github.com/aplite/aplite/core/output"
)

// sysTimeField is the ingestion time every dataset has.
const sysTimeField = "_sysTime"

// Legacy renders o in the legacy format: raw events become matches; an
// aggregation becomes buckets (a leading time bin turns into the series,
// the other keys into each entry's group).
func Legacy(o *output.Output) *LegacyResult {
	out := &LegacyResult{
		Format:        "legacy",
		Status:        status(o),
		Matches:       []LegacyEntry{},
		Buckets:       LegacyBuckets{Series: []LegacyInterval{}, Totals: []LegacyEntryGroup{}},
		DatasetNames:  datasetNames(o),
		FieldsMetaMap: fieldsMeta(o),
		Request:       legacyRequest(o),
	}
	sum := o.Summary
	switch {
	case sum == nil:
		out.Matches = matches(&o.Table)
	case sum.TimeKey < 0:
		out.Buckets.Totals = entryGroups(&o.Table, sum, nil)
	default:
		out.Buckets.Series = series(&o.Table, sum)
		if o.Totals != nil {
			out.Buckets.Totals = entryGroups(o.Totals, sum, nil)
		}
	}
	return out
}

// legacyRequest echoes the query as the legacy request it amounts to.
func legacyRequest(o *output.Output) *LegacyRequest {
	rg := rangeRef(o)
	req := &LegacyRequest{StartTime: rg.Start, EndTime: rg.End, Resolution: "auto", Limit: 1000,
		Aggregations: []LegacyAggSpec{}, GroupBy: []string{}, Order: order(o), VirtualFields: []any{}, Project: []any{}}
	if sum := o.Summary; sum != nil {
		for _, a := range sum.Aggs {
			alias := ""
			if len(a.Columns) > 0 {
				alias = a.Columns[0]
			}
			req.Aggregations = append(req.Aggregations, LegacyAggSpec{Op: a.Op, Field: "*", Alias: alias})
		}
		for i, k := range sum.Keys {
			if i == sum.TimeKey {
				req.Resolution = time.Duration(sum.BinSize).String()
				continue
			}
			req.GroupBy = append(req.GroupBy, k)
		}
	}
	return req
}

// matches renders raw rows as legacy entries.
func matches(t *output.Table) []LegacyEntry {
	out := make([]LegacyEntry, 0, t.Rows)
	ti, si := t.Index(timeField), t.Index(sysTimeField)
	for i := 0; i < t.Rows; i++ {
		e := LegacyEntry{Data: map[string]any{}}
		for j, c := range t.Columns {
			v := output.Cell(c.Vec, i)
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

// entryGroups renders aggregation rows (all of them, or those listed) as
// legacy entry groups; the columns named like summarize keys (except the
// time key) form the group.
func entryGroups(t *output.Table, sum *output.Summary, rows []int) []LegacyEntryGroup {
	isKey := map[string]bool{}
	for i, k := range sum.Keys {
		if i != sum.TimeKey {
			isKey[k] = true
		}
	}
	if rows == nil {
		for i := 0; i < t.Rows; i++ {
			rows = append(rows, i)
		}
	}
	out := []LegacyEntryGroup{}
	for _, i := range rows {
		g := LegacyEntryGroup{Group: map[string]any{}, Aggregations: []LegacyAggValue{}}
		for j, c := range t.Columns {
			if j == sum.TimeKey && j < len(sum.Keys) && c.Name == sum.Keys[j] {
				continue
			}
			v := output.Cell(c.Vec, i)
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

// groupID is a stable id for a group's key values, equal in series and
// totals (FNV-1a over the sorted key=value pairs).
func groupID(g map[string]any) uint64 {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := uint64(14695981039346656037)
	for _, k := range keys {
		for _, c := range []byte(k + "=" + output.Text(g[k]) + ";") {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return h
}

// series splits a time-bucketed result into one interval per bucket.
func series(t *output.Table, sum *output.Summary) []LegacyInterval {
	out := []LegacyInterval{}
	tv := t.Columns[sum.TimeKey].Vec
	var cur []int
	var curT int64
	flush := func() {
		if len(cur) == 0 {
			return
		}
		out = append(out, LegacyInterval{
			StartTime: output.FormatTime(curT),
			EndTime:   output.FormatTime(curT + sum.BinSize),
			Groups:    entryGroups(t, sum, cur),
		})
		cur = nil
	}
	for i := 0; i < t.Rows; i++ {
		ts := tv.Int(i)
		if len(cur) > 0 && ts != curT {
			flush()
		}
		curT = ts
		cur = append(cur, i)
	}
	flush()
	return out
}
