package core

import (
	"math"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
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
	sch      schema
	axis     *expr
	keys     []*expr
	keyTypes []vector.Type
	aggs     []*aggCall
	defaults []any
	intAxis  bool // axis and step in int64 (datetime, timespan, long)
	step     int64
	fstep    float64
	from, to *float64 // seriesBounds as float64 for a real axis
	ifrom    *int64
	ito      *int64
	axisType vector.Type
}

func (p *planner) planMakeSeries(in schema, op *parser.MakeSeriesOp) (stage, error) {
	c := p.compilerFor(in)
	st := &makeSeriesStage{}
	axis, err := c.compile(op.On)
	if err != nil {
		return nil, err
	}
	switch axis.typ {
	case vector.DateTime, vector.TimeSpan, vector.Int, vector.Float:
	default:
		return nil, semErr(op.On, "make-series axis must be a datetime, timespan or number, got %s", axis.typ)
	}
	st.axis, st.axisType = axis, axis.typ
	if err := seriesBounds(st, c, op); err != nil {
		return nil, err
	}
	var keyNames []string
	for _, ne := range op.By {
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = byName(ne.Expr, e, st.sch)
		}
		st.keys = append(st.keys, e)
		st.keyTypes = append(st.keyTypes, e.typ)
		st.sch = append(st.sch, colDef{name, e.typ})
		keyNames = append(keyNames, name)
	}
	actx := &agg.Context{Start: p.req.Start, End: p.req.End}
	if axis.typ == vector.DateTime {
		actx.BinSize = st.step
	}
	for _, ma := range op.Aggs {
		if err := seriesPlanAgg(st, p, c, in, ma, actx, keyNames); err != nil {
			return nil, err
		}
	}
	name := axisName(op.On, axis, st.sch)
	st.sch = append(st.sch, colDef{name, vector.Dynamic})
	return st, nil
}

// seriesPlanAgg plans one aggregation and its default.
func seriesPlanAgg(st *makeSeriesStage, p *planner, c *compiler, in schema, ma *parser.MakeSeriesAgg, actx *agg.Context, keyNames []string) error {
	ac, err := p.planAgg(c, in, ma.Agg, actx, keyNames)
	if err != nil {
		return err
	}
	if len(ac.outs) != 1 {
		return semErr(ma.Agg.Expr, "make-series needs aggregations with one result; %s returns %d", ac.fname, len(ac.outs))
	}
	var def any
	if ma.Default != nil {
		d, err := c.compile(ma.Default)
		if err != nil {
			return err
		}
		if !d.isConst() {
			return semErr(ma.Default, "make-series default must be a constant")
		}
		def = d.constValue()
	} else if ac.outs[0].IsNumeric() {
		def = int64(0)
	}
	if def != nil && ac.outs[0] != vector.Dynamic {
		if def = convertValue(def, ac.outs[0]); def == nil {
			return semErr(ma.Default, "make-series default does not fit the %s result of %s", ac.outs[0], ac.fname)
		}
	}
	name := ac.names[0]
	if st.sch.index(name) >= 0 {
		name = uniqueName(st.sch, name)
	}
	st.sch = append(st.sch, colDef{name, vector.Dynamic})
	st.aggs = append(st.aggs, ac)
	st.defaults = append(st.defaults, def)
	return nil
}

// axisName is the output name of the axis: the on column's name.
func axisName(ast parser.Expr, e *expr, s schema) string {
	name := ""
	if e.col >= 0 {
		name = e.name
	} else if n, ok := dottedName(ast); ok {
		name = n
	} else if id := firstIdent(ast); id != "" {
		name = id
	}
	if name == "" {
		return nextColumnName(s)
	}
	if s.index(name) >= 0 {
		return uniqueName(s, name)
	}
	return name
}

// seriesBounds compiles from, to and step, which must be constants of the
// axis's kind.
func seriesBounds(st *makeSeriesStage, c *compiler, op *parser.MakeSeriesOp) error {
	konst := func(e parser.Expr, what string) (any, vector.Type, error) {
		v, err := c.compile(e)
		if err != nil {
			return nil, 0, err
		}
		if !v.isConst() || v.cnst.IsNull(0) {
			return nil, 0, semErr(e, "make-series %s must be a constant", what)
		}
		return v.constValue(), v.typ, nil
	}
	if op.Step == nil {
		return semErr(op, "make-series needs a step")
	}
	step, stepType, err := konst(op.Step, "step")
	if err != nil {
		return err
	}
	timeAxis := st.axisType == vector.DateTime || st.axisType == vector.TimeSpan
	switch {
	case timeAxis && stepType != vector.TimeSpan:
		return semErr(op.Step, "make-series step over a %s axis must be a timespan, got %s", st.axisType, stepType)
	case !timeAxis && !stepType.IsNumeric():
		return semErr(op.Step, "make-series step over a numeric axis must be a number, got %s", stepType)
	}
	st.intAxis = timeAxis || (st.axisType == vector.Int && stepType == vector.Int)
	if st.intAxis {
		st.step = toInt64(step)
		if st.step <= 0 {
			return semErr(op.Step, "make-series step must be positive")
		}
	} else {
		st.fstep, _ = fn.DynFloat(step)
		if !(st.fstep > 0) || math.IsInf(st.fstep, 0) {
			return semErr(op.Step, "make-series step must be positive")
		}
	}
	for _, b := range []struct {
		e    parser.Expr
		what string
		i    **int64
		f    **float64
	}{{op.From, "from", &st.ifrom, &st.from}, {op.To, "to", &st.ito, &st.to}} {
		if b.e == nil {
			continue
		}
		v, t, err := konst(b.e, b.what)
		if err != nil {
			return err
		}
		if (t == st.axisType) || (!timeAxis && t.IsNumeric()) {
			if st.intAxis {
				iv := toInt64(v)
				*b.i = &iv
			} else {
				fv, _ := fn.DynFloat(v)
				*b.f = &fv
			}
			continue
		}
		return semErr(b.e, "make-series %s must be a %s like the axis, got %s", b.what, st.axisType, t)
	}
	if n := st.fixedBins(); n > maxSeriesBins {
		return semErr(op.Step, "make-series would have %d bins per series (at most %d): use a larger step or a narrower range", n, maxSeriesBins)
	}
	return nil
}

// fixedBins is the series length when from and to are both given, else 0.
func (st *makeSeriesStage) fixedBins() int64 {
	switch {
	case st.ifrom != nil && st.ito != nil:
		return ceilDiv(*st.ito-*st.ifrom, st.step)
	case st.from != nil && st.to != nil:
		return int64(math.Min(math.Ceil((*st.to-*st.from)/st.fstep), math.MaxInt64/2))
	}
	return 0
}

// toInt64 reads a boxed long, datetime or timespan as int64.
func toInt64(v any) int64 {
	switch x := v.(type) {
	case time.Time:
		return x.UnixNano()
	case time.Duration:
		return int64(x)
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

func (st *makeSeriesStage) out() schema { return st.sch }
