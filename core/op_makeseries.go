package core

import (
	"math"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planMakeSeries(in exec.Schema, op *parser.MakeSeriesOp) (exec.Stage, error) {
	c := p.compilerFor(in)
	st := &exec.MakeSeriesStage{}
	axis, err := c.compile(op.On)
	if err != nil {
		return nil, err
	}
	switch axis.Typ {
	case vector.DateTime, vector.TimeSpan, vector.Int, vector.Float:
	default:
		return nil, semErr(op.On, "make-series axis must be a datetime, timespan or number, got %s", axis.Typ)
	}
	st.Axis, st.AxisType = axis, axis.Typ
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
			name = byName(ne.Expr, e, st.Sch)
		}
		st.Keys = append(st.Keys, e)
		st.KeyTypes = append(st.KeyTypes, e.Typ)
		st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: e.Typ})
		keyNames = append(keyNames, name)
	}
	actx := &agg.Context{Start: p.req.Start, End: p.req.End}
	if axis.Typ == vector.DateTime {
		actx.BinSize = st.Step
	}
	for _, ma := range op.Aggs {
		if err := seriesPlanAgg(st, p, c, in, ma, actx, keyNames); err != nil {
			return nil, err
		}
	}
	name := axisName(op.On, axis, st.Sch)
	st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: vector.Dynamic})
	return st, nil
}

// seriesPlanAgg plans one aggregation and its default.
func seriesPlanAgg(st *exec.MakeSeriesStage, p *planner, c *compiler, in exec.Schema, ma *parser.MakeSeriesAgg, actx *agg.Context, keyNames []string) error {
	ac, err := p.planAgg(c, in, ma.Agg, actx, keyNames)
	if err != nil {
		return err
	}
	if len(ac.Outs) != 1 {
		return semErr(ma.Agg.Expr, "make-series needs aggregations with one result; %s returns %d", ac.Fname, len(ac.Outs))
	}
	var def any
	if ma.Default != nil {
		d, err := c.compile(ma.Default)
		if err != nil {
			return err
		}
		if !d.IsConst() {
			return semErr(ma.Default, "make-series default must be a constant")
		}
		def = d.ConstValue()
	} else if ac.Outs[0].IsNumeric() {
		def = int64(0)
	}
	if def != nil && ac.Outs[0] != vector.Dynamic {
		if def = exec.ConvertValue(def, ac.Outs[0]); def == nil {
			return semErr(ma.Default, "make-series default does not fit the %s result of %s", ac.Outs[0], ac.Fname)
		}
	}
	name := ac.Names[0]
	if st.Sch.Index(name) >= 0 {
		name = uniqueName(st.Sch, name)
	}
	st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: vector.Dynamic})
	st.Aggs = append(st.Aggs, ac)
	st.Defaults = append(st.Defaults, def)
	return nil
}

// axisName is the output name of the axis: the on column's name.
func axisName(ast parser.Expr, e *exec.Expr, s exec.Schema) string {
	name := ""
	if e.Col >= 0 {
		name = e.Name
	} else if n, ok := dottedName(ast); ok {
		name = n
	} else if id := firstIdent(ast); id != "" {
		name = id
	}
	if name == "" {
		return nextColumnName(s)
	}
	if s.Index(name) >= 0 {
		return uniqueName(s, name)
	}
	return name
}

// seriesBounds compiles from, to and step, which must be constants of the
// axis's kind.
func seriesBounds(st *exec.MakeSeriesStage, c *compiler, op *parser.MakeSeriesOp) error {
	konst := func(e parser.Expr, what string) (any, vector.Type, error) {
		v, err := c.compile(e)
		if err != nil {
			return nil, 0, err
		}
		if !v.IsConst() || v.Cnst.IsNull(0) {
			return nil, 0, semErr(e, "make-series %s must be a constant", what)
		}
		return v.ConstValue(), v.Typ, nil
	}
	if op.Step == nil {
		return semErr(op, "make-series needs a step")
	}
	step, stepType, err := konst(op.Step, "step")
	if err != nil {
		return err
	}
	timeAxis := st.AxisType == vector.DateTime || st.AxisType == vector.TimeSpan
	switch {
	case timeAxis && stepType != vector.TimeSpan:
		return semErr(op.Step, "make-series step over a %s axis must be a timespan, got %s", st.AxisType, stepType)
	case !timeAxis && !stepType.IsNumeric():
		return semErr(op.Step, "make-series step over a numeric axis must be a number, got %s", stepType)
	}
	st.IntAxis = timeAxis || (st.AxisType == vector.Int && stepType == vector.Int)
	if st.IntAxis {
		st.Step = toInt64(step)
		if st.Step <= 0 {
			return semErr(op.Step, "make-series step must be positive")
		}
	} else {
		st.Fstep, _ = fn.DynFloat(step)
		if !(st.Fstep > 0) || math.IsInf(st.Fstep, 0) {
			return semErr(op.Step, "make-series step must be positive")
		}
	}
	for _, b := range []struct {
		e    parser.Expr
		what string
		i    **int64
		f    **float64
	}{{op.From, "from", &st.Ifrom, &st.From}, {op.To, "to", &st.Ito, &st.To}} {
		if b.e == nil {
			continue
		}
		v, t, err := konst(b.e, b.what)
		if err != nil {
			return err
		}
		if (t == st.AxisType) || (!timeAxis && t.IsNumeric()) {
			if st.IntAxis {
				iv := toInt64(v)
				*b.i = &iv
			} else {
				fv, _ := fn.DynFloat(v)
				*b.f = &fv
			}
			continue
		}
		return semErr(b.e, "make-series %s must be a %s like the axis, got %s", b.what, st.AxisType, t)
	}
	if n := st.FixedBins(); n > exec.MaxSeriesBins {
		return semErr(op.Step, "make-series would have %d bins per series (at most %d): use a larger step or a narrower range", n, exec.MaxSeriesBins)
	}
	return nil
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
