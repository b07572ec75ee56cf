package core

import (
	"math"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// series is a make-series's axis as planned: its type, whether it bins
// in int64 (datetime, timespan, long with a long step) and the step and
// bounds in that domain or in float64.
type series struct {
	axisType   vector.Type
	intAxis    bool
	step       int64
	fstep      float64
	ifrom, ito *int64
	ffrom, fto *float64
	sch        exec.Schema
	node       plan.Stage
}

func (p *planner) planMakeSeries(in exec.Schema, op *parser.MakeSeriesOp) (*step, error) {
	c := p.compilerFor(in)
	axis, err := c.compile(op.On)
	if err != nil {
		return nil, err
	}
	switch axis.Typ {
	case vector.DateTime, vector.TimeSpan, vector.Int, vector.Float:
	default:
		return nil, semErr(op.On, "make-series axis must be a datetime, timespan or number, got %s", axis.Typ)
	}
	st := &series{axisType: axis.Typ}
	if err := seriesBounds(st, c, op); err != nil {
		return nil, err
	}
	st.node = plan.Stage{Kind: plan.SSeries, Keys: []*plan.Expr{}, Series: st.seriesNode(axis.Node)}
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
		st.node.Keys = append(st.node.Keys, e.Node)
		st.sch = append(st.sch, exec.ColDef{Name: name, Type: e.Typ})
		keyNames = append(keyNames, name)
	}
	for _, ma := range op.Aggs {
		if err := seriesPlanAgg(st, p, c, in, ma, keyNames); err != nil {
			return nil, err
		}
	}
	name := axisName(op.On, axis, st.sch)
	st.sch = append(st.sch, exec.ColDef{Name: name, Type: vector.Dynamic})
	st.node.Schema = fields(st.sch)
	return one(st.node, st.sch), nil
}

// seriesNode is the node of the axis, step and bounds, in the domain
// the stage bins in.
func (st *series) seriesNode(axis *plan.Expr) *plan.Series {
	bound := func(i *int64, f *float64) *plan.Expr {
		switch {
		case st.intAxis && i != nil:
			return plan.Const(vector.Int, *i, nil)
		case !st.intAxis && f != nil:
			return plan.Const(vector.Float, *f, nil)
		}
		return nil
	}
	step := st.step
	return &plan.Series{Axis: axis, Step: bound(&step, &st.fstep), From: bound(st.ifrom, st.ffrom),
		To: bound(st.ito, st.fto), Defaults: []*plan.Expr{}}
}

// seriesPlanAgg plans one aggregation and its default.
func seriesPlanAgg(st *series, p *planner, c *compiler, in exec.Schema, ma *parser.MakeSeriesAgg, keyNames []string) error {
	ac, err := p.planAgg(c, in, ma.Agg, keyNames)
	if err != nil {
		return err
	}
	if len(ac.outs) != 1 {
		return semErr(ma.Agg.Expr, "make-series needs aggregations with one result; %s returns %d", ac.node.Name, len(ac.outs))
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
	} else if ac.outs[0].IsNumeric() {
		def = int64(0)
	}
	if def != nil && ac.outs[0] != vector.Dynamic {
		if def = exec.ConvertValue(def, ac.outs[0]); def == nil {
			return semErr(ma.Default, "make-series default does not fit the %s result of %s", ac.outs[0], ac.node.Name)
		}
	}
	name := ac.node.Outs[0]
	if st.sch.Index(name) >= 0 {
		name = uniqueName(st.sch, name)
	}
	st.sch = append(st.sch, exec.ColDef{Name: name, Type: vector.Dynamic})
	st.node.Aggs = append(st.node.Aggs, ac.node)
	t := ac.outs[0]
	if def == nil {
		t = vector.Null
	}
	st.node.Series.Defaults = append(st.node.Series.Defaults, plan.Const(t, def, nil))
	return nil
}

// axisName is the output name of the axis: the on column's name.
func axisName(ast parser.Expr, e *typed, s exec.Schema) string {
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
func seriesBounds(st *series, c *compiler, op *parser.MakeSeriesOp) error {
	konst := func(e parser.Expr, what string) (any, vector.Type, error) {
		v, err := c.compile(e)
		if err != nil {
			return nil, 0, err
		}
		if !v.IsConst() || v.ConstValue() == nil {
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
	}{{op.From, "from", &st.ifrom, &st.ffrom}, {op.To, "to", &st.ito, &st.fto}} {
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
	if n := st.fixedBins(); n > exec.MaxSeriesBins {
		return semErr(op.Step, "make-series would have %d bins per series (at most %d): use a larger step or a narrower range", n, exec.MaxSeriesBins)
	}
	return nil
}

// fixedBins is how many bins every series has when from and to are
// both given (0: it depends on the data).
func (st *series) fixedBins() int64 {
	switch {
	case st.ifrom != nil && st.ito != nil:
		return ceilDiv(*st.ito-*st.ifrom, st.step)
	case st.ffrom != nil && st.fto != nil:
		return int64(math.Min(math.Ceil((*st.fto-*st.ffrom)/st.fstep), math.MaxInt64/2))
	}
	return 0
}

// ceilDiv is a/b rounded up, for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b > 0 {
		q++
	}
	return q
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
