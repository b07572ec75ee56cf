package core

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Result is an evaluated query, renderable in either API format.
type Result struct {
	sch      schema
	b        *batch
	datasets []string
	req      *Request
	x        *execCtx
	pl       *pipeline
	elapsed  time.Duration
	// cacheStatus is CacheComputed or CacheHit.
	cacheStatus int
	messages    []Message
	// damaged describes corrupt blocks of the datasets read: the result
	// lacks their rows and says so (isPartial).
	damaged []Message
}

// AddMessage attaches a note or warning to the result's status.
func (r *Result) AddMessage(m Message) { r.messages = append(r.messages, m) }

// RowsExamined is the number of stored rows the query scanned.
func (r *Result) RowsExamined() int64 { return r.x.stats.rowsExamined.Load() }

// Columns returns the output column names and API type names.
func (r *Result) Columns() (names, types []string) {
	for _, c := range r.sch {
		names = append(names, c.Name)
		types = append(types, c.Type.APIName())
	}
	return names, types
}

// NumRows returns the number of result rows.
func (r *Result) NumRows() int { return r.b.n }

// Value returns the JSON-ready value of row i, column j (as the API
// renders it: datetimes as RFC 3339 strings, timespans as Go durations,
// non-finite floats as null).
func (r *Result) Value(i, j int) any { return jsonCell(r.b.vecs[j], i) }

// jsonCell renders one cell of a vector as the API does.
func jsonCell(v *vector.Vector, i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.Type {
	case vector.Float:
		f := v.Float(i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case vector.Int:
		return v.Int(i)
	case vector.Bool:
		return v.Bool(i)
	case vector.String:
		return v.Str(i)
	case vector.DateTime:
		return formatTime(v.Int(i))
	case vector.TimeSpan:
		return formatTimespan(time.Duration(v.Int(i)))
	case vector.Dynamic:
		return jsonValue(v.Dyn(i))
	}
	return nil
}

// formatTime renders ns since the epoch as RFC 3339 UTC with up to 9
// fractional digits.
func formatTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

// status builds the statistics block.
func (r *Result) status() Status {
	st := r.x.stats
	s := Status{
		ElapsedTime:    r.elapsed.Microseconds(),
		BlocksExamined: st.blocksExamined.Load(),
		BlocksMatched:  st.blocksMatched.Load(),
		BlocksCached:   st.blocksCached.Load(),
		RowsExamined:   st.rowsExamined.Load(),
		RowsMatched:    min(st.rowsMatched.Load(), st.rowsExamined.Load()),
		CacheStatus:    r.cacheStatus,
		MinBlockTime:   formatTime(0),
		MaxBlockTime:   formatTime(0),
		Messages:       append(append([]Message(nil), r.damaged...), r.messages...),
		IsPartial:      len(r.damaged) > 0,
	}
	if st.seen.Load() {
		s.MinBlockTime = formatTime(st.minBlockTime.Load())
		s.MaxBlockTime = formatTime(st.maxBlockTime.Load())
	}
	if ti := r.sch.index(store.TimeField); ti >= 0 && r.sch[ti].Type == vector.DateTime && r.b.n > 0 {
		tv := r.b.vecs[ti]
		lo, hi, seen := int64(0), int64(0), false
		for i := 0; i < r.b.n; i++ {
			if tv.IsNull(i) {
				continue
			}
			t := tv.Int(i)
			if !seen || t < lo {
				lo = t
			}
			if !seen || t > hi {
				hi = t
			}
			seen = true
		}
		if seen {
			s.MinCursor, s.MaxCursor = makeCursor(lo), makeCursor(hi)
		}
	}
	if sum := r.summarize(); sum != nil && sum.final != nil {
		s.NumGroups = int64(sum.final.groups.n)
	}
	return s
}

// summarize returns the final summarize stage when the result is its
// output (possibly re-sorted), else nil.
func (r *Result) summarize() *summarizeStage {
	for i := len(r.pl.stages) - 1; i >= 0; i-- {
		switch st := r.pl.stages[i].(type) {
		case *summarizeStage:
			return st
		case *sortStage:
			continue
		default:
			return nil
		}
	}
	return nil
}

// Tabular renders the result in the tabular format.
func (r *Result) Tabular() *TabularResult {
	out := &TabularResult{
		Format:        "tabular",
		Status:        r.status(),
		DatasetNames:  r.datasetNames(),
		FieldsMetaMap: r.fieldsMeta(),
	}
	main := r.table("0", r.sch, r.b)
	sum := r.summarize()
	if sum != nil {
		main.Groups = []NameRef{}
		for _, k := range sum.keyNames {
			main.Groups = append(main.Groups, NameRef{Name: k})
		}
		r.markAggs(&main, sum)
	}
	out.Tables = append(out.Tables, main)
	if sum != nil && sum.timeKey >= 0 {
		out.Tables[0].Buckets = &BucketsRef{Field: sum.keyNames[sum.timeKey], Size: sum.binSize}
		if tb, ts := sum.totals(r.x); tb != nil {
			t := r.table("_totals", ts, tb)
			t.Order = []OrderRef{}
			t.Groups = []NameRef{}
			for i, k := range sum.keyNames {
				if i != sum.timeKey {
					t.Groups = append(t.Groups, NameRef{Name: k})
				}
			}
			r.markAggs(&t, sum)
			out.Tables = append(out.Tables, t)
		}
	}
	return out
}

// table renders one table.
func (r *Result) table(name string, sch schema, b *batch) TabularTable {
	t := TabularTable{
		Name:    name,
		Sources: []NameRef{},
		Fields:  []TabularField{},
		Order:   r.order(),
		Groups:  []NameRef{},
		Columns: [][]any{},
	}
	for _, d := range r.datasets {
		t.Sources = append(t.Sources, NameRef{Name: d})
	}
	for j, c := range sch {
		t.Fields = append(t.Fields, TabularField{Name: c.Name, Type: c.Type.APIName()})
		col := make([]any, b.n)
		for i := range col {
			col[i] = jsonCell(b.vecs[j], i)
		}
		t.Columns = append(t.Columns, col)
	}
	if len(r.datasets) > 0 {
		t.Range = r.rangeRef()
	}
	return t
}

// markAggs sets fields[].agg on aggregation columns: the operation, the
// fields it reads and its constant arguments (topk(remote_ip, 1) is
// fields ["remote_ip"], args [1]), as the clients decode them.
func (r *Result) markAggs(t *TabularTable, sum *summarizeStage) {
	for _, a := range sum.aggs {
		info := AggInfo{Name: apiAggName(a.spec)}
		for _, e := range a.args {
			switch {
			case e.isConst():
				if v := e.constValue(); v != nil {
					info.Args = append(info.Args, v)
				}
			case e.col >= 0 && e.name != "":
				info.Fields = append(info.Fields, e.name)
			}
		}
		for _, n := range a.names {
			for i := range t.Fields {
				if t.Fields[i].Name == n {
					cp := info
					t.Fields[i].Agg = &cp
				}
			}
		}
	}
}

// apiAggName is the agg.name the clients accept.
func apiAggName(s *agg.Spec) string {
	if s.APIName != "" {
		return s.APIName
	}
	return "computed"
}

// order reports the result order when it is by plain columns.
func (r *Result) order() []OrderRef {
	out := []OrderRef{}
	if len(r.pl.stages) == 0 {
		return out
	}
	var keys []sortKey
	switch st := r.pl.stages[len(r.pl.stages)-1].(type) {
	case *sortStage:
		keys = st.keys
	case *topStage:
		if !st.sortTake {
			keys = st.keys
		}
	}
	for _, k := range keys {
		if k.e.col >= 0 && k.e.name != "" {
			out = append(out, OrderRef{Field: k.e.name, Desc: k.desc})
		}
	}
	return out
}

// rangeRef is the queried time range.
func (r *Result) rangeRef() *RangeRef {
	start, end := r.req.Start, r.req.End
	if start.IsZero() {
		start = time.Unix(0, 0)
	}
	if end.IsZero() {
		end = r.x.fn.Now
	}
	return &RangeRef{Field: store.TimeField, Start: start.UTC().Format(time.RFC3339Nano), End: end.UTC().Format(time.RFC3339Nano)}
}

func (r *Result) datasetNames() []string {
	if r.datasets == nil {
		return []string{}
	}
	return r.datasets
}

// fieldsMeta lists each dataset's fields with their types.
func (r *Result) fieldsMeta() map[string][]FieldMeta {
	out := map[string][]FieldMeta{}
	for _, d := range r.datasets {
		out[d] = []FieldMeta{}
		if r.pl == nil {
			continue
		}
		if scan, ok := r.pl.src.(*scanSource); ok {
			for _, c := range scan.sch {
				if strings.HasPrefix(c.Name, "_") {
					continue
				}
				out[d] = append(out[d], FieldMeta{Name: c.Name, Type: c.Type.APIName()})
			}
		}
	}
	return out
}

// totals re-aggregates the final groups without the time key, by merging
// their states: exact for every aggregation, and no second scan.
func (s *summarizeStage) totals(x *execCtx) (*batch, schema) {
	f := s.final
	if f == nil {
		return nil, nil
	}
	var keyCols []*vector.Vector
	var types []vector.Type
	var sch schema
	for i, k := range f.groups.keys {
		if i == s.timeKey {
			continue
		}
		keyCols = append(keyCols, k)
		types = append(types, k.Type)
		sch = append(sch, s.sch[i])
	}
	g := newGroupTable(types)
	into := make([]uint32, f.groups.n)
	g.assign(keyCols, nil, f.groups.n, into)
	if len(types) == 0 {
		g.n = 1
	}
	vecs := append([]*vector.Vector(nil), g.keys...)
	for i, a := range s.aggs {
		st, err := a.spec.New(a.ctx, a.types, a.consts)
		if err != nil {
			return nil, nil
		}
		st.Grow(g.n)
		st.Merge(f.states[i], into)
		res := st.Result(g.n)
		for j, v := range res {
			col := s.sch[len(s.keys)+aggOffset(s, i)+j]
			sch = append(sch, col)
			vecs = append(vecs, castVector(v, col.Type))
		}
	}
	return newBatch(vecs, g.n), sch
}

// aggOffset is the position of aggregation i's first column among the
// aggregation columns.
func aggOffset(s *summarizeStage, i int) int {
	n := 0
	for _, a := range s.aggs[:i] {
		n += len(a.outs)
	}
	return n
}

// damageMessages turns the damaged blocks of the snapshots a query read
// into status messages: a short answer is never presented as whole.
func damageMessages(snaps []*store.Snapshot) []Message {
	var out []Message
	for _, s := range snaps {
		if len(s.Damaged) == 0 {
			continue
		}
		names := make([]string, 0, len(s.Damaged))
		for _, d := range s.Damaged {
			names = append(names, d.Name+" ("+d.Reason+")")
		}
		out = append(out, Message{Priority: "error", Count: len(s.Damaged), Code: "apl_partialresult_damagedblocks",
			Msg: fmt.Sprintf("dataset %s: %d block(s) set aside as corrupt, their events are missing from this result: %s",
				s.Dataset, len(s.Damaged), strings.Join(names, "; "))})
	}
	return out
}
