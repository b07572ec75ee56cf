package exec

import (
	"math"

	"github.com/aplite/aplite/vector"
)

// makeSeriesStage is make-series: hash aggregation keyed by the by-keys
// plus the axis bin, then one row per by-group with a dynamic array per
// aggregation (one element per bin, the default where a bin has no rows)
// and the axis itself as an array of bin starts.
//
// Columns are the by-keys, the aggregations (named as summarize names
// them: count_, avg_x, ...) and last the axis, named after the on column
// as in KQL. Without `from`, the series start at the first bin that has
// data in any series; without `to`, they end after the last such bin.
// Bins are [from + k*step, from + (k+1)*step); `to` is exclusive.
type makeSeriesStage struct {
	Sch      Schema
	Axis     *Expr
	Keys     []*Expr
	KeyTypes []vector.Type
	Aggs     []*aggCall
	Defaults []any
	IntAxis  bool // axis and step in int64 (datetime, timespan, long)
	Step     int64
	Fstep    float64
	From, To *float64 // seriesBounds as float64 for a real axis
	Ifrom    *int64
	Ito      *int64
	AxisType vector.Type
}

// FixedBins is the series length when from and to are both given, else 0.
func (st *makeSeriesStage) FixedBins() int64 {
	switch {
	case st.Ifrom != nil && st.Ito != nil:
		return ceilDiv(*st.Ito-*st.Ifrom, st.Step)
	case st.From != nil && st.To != nil:
		return int64(math.Min(math.Ceil((*st.To-*st.From)/st.Fstep), math.MaxInt64/2))
	}
	return 0
}

// Out implements Stage.
func (st *makeSeriesStage) Out() Schema { return st.Sch }
