package core

import (
	"fmt"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// Stages as plan nodes and back. A stage kind that can run on another
// node implements planned; buildStage makes the same stage from its node
// with the constructors the planner uses. Stages without a plan form
// (parse, mv-expand, join, ...) keep a query on the node that received it.

// planned is a stage with a plan form; ok is false when one of its
// expressions has none.
type planned interface {
	toPlan() (st *plan.Stage, ok bool)
}

func schemaPlan(s schema) []plan.Field {
	out := make([]plan.Field, len(s))
	for i, c := range s {
		out[i] = plan.Field{Name: c.Name, Type: c.Type}
	}
	return out
}

func schemaFromPlan(fs []plan.Field) schema {
	out := make(schema, len(fs))
	for i, f := range fs {
		out[i] = colDef{f.Name, f.Type}
	}
	return out
}

// exprNodes lists the nodes of es; ok is false when one has none.
func exprNodes(es []*expr) ([]*plan.Expr, bool) {
	out := make([]*plan.Expr, len(es))
	for i, e := range es {
		if e.node == nil {
			return nil, false
		}
		out[i] = e.node
	}
	return out, true
}

func sortKeysPlan(keys []sortKey) ([]plan.SortKey, bool) {
	out := make([]plan.SortKey, len(keys))
	for i, k := range keys {
		if k.e.node == nil {
			return nil, false
		}
		out[i] = plan.SortKey{X: k.e.node, Desc: k.desc, NullsLast: k.nullsLast}
	}
	return out, true
}

func (w *whereStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SWhere, Pred: w.pred.node}, w.pred.node != nil
}

func (s *extendStage) toPlan() (*plan.Stage, bool) {
	ns, ok := exprNodes(s.exprs)
	return &plan.Stage{Kind: plan.SExtend, Schema: schemaPlan(s.sch), Exprs: ns, Slots: s.slots, Valid: s.valid}, ok
}

func (s *projectStage) toPlan() (*plan.Stage, bool) {
	ns, ok := exprNodes(s.exprs)
	return &plan.Stage{Kind: plan.SProject, Schema: schemaPlan(s.sch), Exprs: ns}, ok
}

func (s *pickStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SPick, Schema: schemaPlan(s.sch), Idx: s.idx}, true
}

func (s *summarizeStage) toPlan() (*plan.Stage, bool) {
	keys, ok := exprNodes(s.keys)
	if !ok {
		return nil, false
	}
	st := &plan.Stage{Kind: plan.SSummarize, Schema: schemaPlan(s.sch), Keys: keys, TimeKey: s.timeKey,
		BinSize: s.binSize, BinCol: s.binCol}
	for _, a := range s.aggs {
		pa, ok := aggPlan(a)
		if !ok {
			return nil, false
		}
		st.Aggs = append(st.Aggs, pa)
	}
	return st, true
}

func (c *countStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SCount, Schema: schemaPlan(c.out())}, true
}

func (s *takeStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.STake, N: s.n}, true
}

func (s *topStage) toPlan() (*plan.Stage, bool) {
	keys, ok := sortKeysPlan(s.keys)
	return &plan.Stage{Kind: plan.STop, N: s.n, Order: keys, SortTake: s.sortTake}, ok
}

func (s *sortStage) toPlan() (*plan.Stage, bool) {
	keys, ok := sortKeysPlan(s.keys)
	return &plan.Stage{Kind: plan.SSort, Order: keys}, ok
}

func (s *distinctStage) toPlan() (*plan.Stage, bool) {
	ns, ok := exprNodes(s.exprs)
	return &plan.Stage{Kind: plan.SDistinct, Schema: schemaPlan(s.sch), Exprs: ns}, ok
}

// buildExprs builds nodes over in.
func buildExprs(nodes []*plan.Expr, in schema) ([]*expr, error) {
	out := make([]*expr, len(nodes))
	for i, n := range nodes {
		e, err := buildExpr(n, in)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func buildSortKeys(keys []plan.SortKey, in schema) ([]sortKey, error) {
	out := make([]sortKey, len(keys))
	for i, k := range keys {
		e, err := buildExpr(k.X, in)
		if err != nil {
			return nil, err
		}
		out[i] = sortKey{e: e, desc: k.Desc, nullsLast: k.NullsLast}
	}
	return out, nil
}

// buildStage builds the stage of node ps over input schema in; actx is
// the query's range for the aggregations that read it. The stage's
// output schema must come out as the plan states it, or the sender and
// this node disagree and the stage is refused.
func buildStage(ps *plan.Stage, in schema, actx agg.Context) (stage, error) {
	st, err := buildStageOf(ps, in, actx)
	return checkedStage(ps, st, err)
}

// checkedStage names ps's kind in err, and refuses st when its output
// is not the schema ps records (a kind that keeps its input's schema
// records none).
func checkedStage(ps *plan.Stage, st stage, err error) (stage, error) {
	if err != nil {
		return nil, fmt.Errorf("%s stage: %w", ps.Kind, err)
	}
	if ps.Kind.SameSchema() {
		return st, nil
	}
	if got, want := st.out(), schemaFromPlan(ps.Schema); !sameSchema(got, want) {
		return nil, fmt.Errorf("%s stage: its output is %v here, the plan says %v", ps.Kind, got, want)
	}
	return st, nil
}

func sameSchema(a, b schema) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func buildStageOf(ps *plan.Stage, in schema, actx agg.Context) (stage, error) {
	switch ps.Kind {
	case plan.SWhere:
		pred, err := buildExpr(ps.Pred, in)
		if err != nil {
			return nil, err
		}
		return newWhereStage(in, pred), nil
	case plan.SExtend:
		return buildExtend(ps, in)
	case plan.SProject:
		exprs, err := buildExprs(ps.Exprs, in)
		if err != nil {
			return nil, err
		}
		if len(exprs) != len(ps.Schema) {
			return nil, fmt.Errorf("%d expressions for %d columns", len(exprs), len(ps.Schema))
		}
		sch := schemaFromPlan(ps.Schema)
		return &projectStage{sch: sch, exprs: exprs}, nil
	case plan.SPick:
		if len(ps.Idx) != len(ps.Schema) {
			return nil, fmt.Errorf("%d columns for %d names", len(ps.Idx), len(ps.Schema))
		}
		sch := make(schema, len(ps.Idx))
		for i, j := range ps.Idx {
			if j < 0 || j >= len(in) {
				return nil, fmt.Errorf("column %d of %d", j, len(in))
			}
			sch[i] = colDef{ps.Schema[i].Name, in[j].Type}
		}
		return &pickStage{sch: sch, idx: ps.Idx}, nil
	case plan.SSummarize:
		return buildSummarize(ps, in, actx)
	case plan.SCount:
		return &countStage{}, nil
	case plan.STake:
		if ps.N < 0 {
			return nil, fmt.Errorf("negative row count %d", ps.N)
		}
		return &takeStage{in: in, n: ps.N}, nil
	case plan.STop, plan.SSort:
		if ps.N < 0 {
			// The planner refuses `top -1`; a plan from elsewhere must be
			// refused too, or the scan workers' top pruning panics.
			return nil, fmt.Errorf("negative row count %d", ps.N)
		}
		if len(ps.Order) == 0 {
			// The parser never makes one; top's pruning reads keys[0].
			return nil, fmt.Errorf("no sort key")
		}
		keys, err := buildSortKeys(ps.Order, in)
		if err != nil {
			return nil, err
		}
		if ps.Kind == plan.SSort {
			return &sortStage{in: in, keys: keys}, nil
		}
		return &topStage{in: in, n: ps.N, keys: keys, sortTake: ps.SortTake}, nil
	case plan.SParse:
		return buildParse(ps, in)
	case plan.SMvExpand:
		return buildMvExpand(ps, in)
	case plan.SDistinct:
		exprs, err := buildExprs(ps.Exprs, in)
		if err != nil {
			return nil, err
		}
		if len(exprs) != len(ps.Schema) {
			return nil, fmt.Errorf("%d expressions for %d columns", len(exprs), len(ps.Schema))
		}
		sch := make(schema, len(exprs))
		for i, e := range exprs {
			sch[i] = colDef{ps.Schema[i].Name, e.typ}
		}
		return &distinctStage{sch: sch, exprs: exprs}, nil
	}
	return nil, fmt.Errorf("%w stage kind %q", plan.ErrUnsupported, ps.Kind)
}

// buildExtend replays planExtend: each expression sees the columns
// added before it, and writes its slot.
func buildExtend(ps *plan.Stage, in schema) (stage, error) {
	if len(ps.Slots) != len(ps.Exprs) {
		return nil, fmt.Errorf("%d slots for %d expressions", len(ps.Slots), len(ps.Exprs))
	}
	st := &extendStage{in: in, sch: append(schema(nil), in...), valid: ps.Valid, slots: ps.Slots}
	for i, n := range ps.Exprs {
		e, err := buildExpr(n, st.sch)
		if err != nil {
			return nil, err
		}
		switch slot := ps.Slots[i]; {
		case slot == len(st.sch) && slot < len(ps.Schema):
			st.sch = append(st.sch, colDef{ps.Schema[slot].Name, e.typ})
		case slot >= 0 && slot < len(st.sch):
			if ps.Valid && st.sch[slot].Type != e.typ {
				return nil, fmt.Errorf("extend-valid column %s is %s, the value %s", st.sch[slot].Name, st.sch[slot].Type, e.typ)
			}
			st.sch[slot].Type = e.typ
		default:
			return nil, fmt.Errorf("slot %d of %d columns", slot, len(st.sch))
		}
		st.exprs = append(st.exprs, e)
	}
	return st, nil
}

// buildSummarize replays planSummarize and planAgg from the node.
func buildSummarize(ps *plan.Stage, in schema, actx agg.Context) (stage, error) {
	keys, err := buildExprs(ps.Keys, in)
	if err != nil {
		return nil, err
	}
	if len(keys) > len(ps.Schema) || ps.TimeKey >= len(keys) || ps.BinCol >= len(in) {
		return nil, fmt.Errorf("bad key layout")
	}
	// The workers bin a datetime column's nanoseconds by the width
	// themselves (binIndexes), as the planner sets it up only for
	// bin(_time, w) with w > 0: anything else would panic in a scan worker.
	if ps.BinCol >= 0 && (ps.TimeKey < 0 || ps.BinSize <= 0 || in[ps.BinCol].Type != vector.DateTime) {
		return nil, fmt.Errorf("time bin of column %d by %d for key %d", ps.BinCol, ps.BinSize, ps.TimeKey)
	}
	st := &summarizeStage{in: in, keys: keys, timeKey: ps.TimeKey, binSize: ps.BinSize, binCol: ps.BinCol}
	for i, k := range keys {
		name := ps.Schema[i].Name
		st.sch = append(st.sch, colDef{name, k.typ})
		st.keyNames = append(st.keyNames, name)
	}
	actx.BinSize = ps.BinSize
	ctx := &actx
	for i := range ps.Aggs {
		ac, err := buildAggCall(&ps.Aggs[i], in, ctx)
		if err != nil {
			return nil, err
		}
		for i, t := range ac.outs {
			st.sch = append(st.sch, colDef{ac.names[i], t})
		}
		st.aggs = append(st.aggs, ac)
	}
	return st, nil
}

// buildAggCall replays planAgg from an aggregation's node.
func buildAggCall(pa *plan.Agg, in schema, ctx *agg.Context) (*aggCall, error) {
	spec := agg.Lookup(pa.Name)
	if spec == nil {
		return nil, fmt.Errorf("%w aggregation %q", plan.ErrUnsupported, pa.Name)
	}
	args, err := buildExprs(pa.Args, in)
	if err != nil {
		return nil, err
	}
	// The checks planAgg makes: the states index their arguments and read
	// the constant ones as the compiler let them.
	if n := len(args); n < spec.MinArgs || (spec.MaxArgs >= 0 && n > spec.MaxArgs) {
		return nil, fmt.Errorf("%s expects %s, got %d", pa.Name, arity(spec.MinArgs, spec.MaxArgs), n)
	}
	for _, i := range spec.ConstArgs {
		if i < len(args) && !args[i].isConst() {
			return nil, fmt.Errorf("argument %d of %s must be a constant", i+1, pa.Name)
		}
	}
	ac := &aggCall{spec: spec, args: args, ctx: ctx, names: pa.Outs,
		fname: pa.Name, span: spanOf(pa.Pos)}
	for _, e := range args {
		ac.types = append(ac.types, e.typ)
		ac.consts = append(ac.consts, e.constValue())
		var cf *condFilter
		if e.typ == vector.Bool && !e.isConst() {
			cf = condFilterOf(in, e.node)
		}
		ac.conds = append(ac.conds, cf)
	}
	if ac.outs, err = spec.Result(ac.types); err != nil {
		return nil, fmt.Errorf("%s: %w", pa.Name, err)
	}
	if len(ac.outs) != len(pa.Outs) {
		return nil, fmt.Errorf("%s has %d results here, the plan %d", pa.Name, len(ac.outs), len(pa.Outs))
	}
	return ac, nil
}

// aggPlan is the node of an aggregation; ok is false when an argument
// has none.
func aggPlan(a *aggCall) (plan.Agg, bool) {
	args, ok := exprNodes(a.args)
	return plan.Agg{Name: a.fname, Args: args, Outs: a.names, Pos: posOf(a.span)}, ok
}
