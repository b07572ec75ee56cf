package exec

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// RunInfo is what a run's Output says that the planner knows and the
// operators do not: the datasets the query reads, the request's range and
// the snapshots read (their damaged blocks make the answer partial).
type RunInfo struct {
	Datasets   []string
	Start, End time.Time
	Snaps      []*store.Snapshot
}

// Answer turns a run's final batch into the run's Output: the table, the
// shape rendering needs (summary, order), the totals of a time-bucketed
// summarize and the statistics. The Output keeps nothing of the plan or
// the run, so both may be released once it is built.
func Answer(x *Ctx, pl *Pipeline, b *Batch, ri RunInfo) *output.Output {
	sch := pl.Out()
	o := &output.Output{
		Table:       outTable(sch, b),
		Datasets:    slices.Clone(ri.Datasets),
		Fields:      fieldsSeen(ri.Datasets, pl),
		Start:       ri.Start,
		End:         ri.End,
		Stats:       outStats(x.Stats, sch, b),
		Order:       outOrder(pl),
		CacheStatus: output.Computed,
	}
	if o.End.IsZero() {
		o.End = x.Fn.Now
	}
	o.Messages = append(damageMessages(ri.Snaps), x.Notes...)
	o.Partial = slices.ContainsFunc(o.Messages, func(m output.Message) bool { return m.Priority == "error" })
	if sum := finalSummarize(pl); sum != nil {
		o.Summary = sum.Shape()
		if f := x.Finals.Get(sum); f != nil {
			o.Stats.NumGroups = int64(f.Groups.N)
			if sum.TimeKey >= 0 {
				o.Totals = sum.Totals(f)
			}
		}
	}
	return o
}

// outStats copies the scan counters and derives the cursors from the
// result's _time column.
func outStats(st *scanStats, sch Schema, b *Batch) output.Stats {
	s := output.Stats{
		BlocksExamined: st.BlocksExamined.Load(),
		BlocksMatched:  st.BlocksMatched.Load(),
		BlocksCached:   st.BlocksCached.Load(),
		RowsExamined:   st.RowsExamined.Load(),
		RowsMatched:    st.RowsMatched.Load(),
		PagesDecoded:   st.PagesDecoded.Load(),
		HasBlockTime:   st.Seen.Load(),
		MinBlockTime:   st.MinBlockTime.Load(),
		MaxBlockTime:   st.MaxBlockTime.Load(),
	}
	ti := sch.Index(store.TimeField)
	if ti < 0 || sch[ti].Type != vector.DateTime {
		return s
	}
	tv := b.Cols[ti]
	lo, hi, seen := int64(0), int64(0), false
	for i := 0; i < b.N; i++ {
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
	return s
}

// finalSummarize returns the summarize stage whose output the result is
// (possibly re-sorted), else nil.
func finalSummarize(pl *Pipeline) *summarizeStage {
	for i := len(pl.Stages) - 1; i >= 0; i-- {
		switch st := pl.Stages[i].(type) {
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

// outOrder reports the result's order when it is by plain columns.
func outOrder(pl *Pipeline) []output.Order {
	if len(pl.Stages) == 0 {
		return nil
	}
	var keys []sortKey
	switch st := pl.Stages[len(pl.Stages)-1].(type) {
	case *sortStage:
		keys = st.Keys
	case *topStage:
		if !st.SortTake {
			keys = st.Keys
		}
	}
	var out []output.Order
	for _, k := range keys {
		if k.E.Col >= 0 && k.E.Name != "" {
			out = append(out, output.Order{Field: k.E.Name, Desc: k.Desc})
		}
	}
	return out
}

// fieldsSeen lists, per dataset read, the fields of the query's scan.
func fieldsSeen(datasets []string, pl *Pipeline) map[string][]output.Field {
	out := map[string][]output.Field{}
	scan, _ := pl.Src.(*ScanSource)
	for _, d := range datasets {
		out[d] = nil
		if scan == nil {
			continue
		}
		for _, c := range scan.Sch {
			out[d] = append(out[d], output.Field{Name: c.Name, Type: c.Type})
		}
	}
	return out
}

// damageMessages turns the damage of the snapshots a query read (blocks
// and WAL records set aside as corrupt, blocks missing) into status
// messages: a short answer is never presented as whole.
func damageMessages(snaps []*store.Snapshot) []output.Message {
	var out []output.Message
	for _, s := range snaps {
		if len(s.Damaged) == 0 {
			continue
		}
		names := make([]string, 0, len(s.Damaged))
		for _, d := range s.Damaged {
			names = append(names, d.Name+" ("+d.Reason+")")
		}
		out = append(out, output.Message{Priority: "error", Count: len(s.Damaged), Code: "apl_partialresult_damagedblocks",
			Msg: fmt.Sprintf("dataset %s: %d damaged or missing file(s) (blocks, WAL records), their events are missing from this result: %s",
				s.Dataset, len(s.Damaged), strings.Join(names, "; "))})
	}
	return out
}
