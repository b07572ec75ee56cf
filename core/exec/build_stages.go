package exec

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

// schemaPlan is s as plan fields (a ColDef is a plan.Field), a copy: a
// node never shares what a stage may still change.
func schemaPlan(s Schema) []plan.Field { return append([]plan.Field(nil), s...) }

// schemaFromPlan is the schema of fs, a copy: schemas built from it may
// be appended to and renamed in place.
func schemaFromPlan(fs []plan.Field) Schema { return append(Schema(nil), fs...) }

// exprNodes lists the nodes of es; ok is false when one has none.
func exprNodes(es []*Expr) ([]*plan.Expr, bool) {
	out := make([]*plan.Expr, len(es))
	for i, e := range es {
		if e.Node == nil {
			return nil, false
		}
		out[i] = e.Node
	}
	return out, true
}

func sortKeysPlan(keys []sortKey) ([]plan.SortKey, bool) {
	out := make([]plan.SortKey, len(keys))
	for i, k := range keys {
		if k.E.Node == nil {
			return nil, false
		}
		out[i] = plan.SortKey{X: k.E.Node, Desc: k.Desc, NullsLast: k.NullsLast}
	}
	return out, true
}

func (w *whereStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SWhere, Pred: w.Pred.Node}, w.Pred.Node != nil
}

func (s *extendStage) toPlan() (*plan.Stage, bool) {
	ns, ok := exprNodes(s.Exprs)
	return &plan.Stage{Kind: plan.SExtend, Schema: schemaPlan(s.Sch), Exprs: ns, Slots: s.Slots, Valid: s.Valid}, ok
}

func (s *projectStage) toPlan() (*plan.Stage, bool) {
	ns, ok := exprNodes(s.Exprs)
	return &plan.Stage{Kind: plan.SProject, Schema: schemaPlan(s.Sch), Exprs: ns}, ok
}

func (s *pickStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SPick, Schema: schemaPlan(s.Sch), Idx: s.Idx}, true
}

func (s *summarizeStage) toPlan() (*plan.Stage, bool) {
	keys, ok := exprNodes(s.Keys)
	if !ok {
		return nil, false
	}
	st := &plan.Stage{Kind: plan.SSummarize, Schema: schemaPlan(s.Sch), Keys: keys, TimeKey: s.TimeKey,
		BinSize: s.BinSize, BinCol: s.BinCol}
	for _, a := range s.Aggs {
		pa, ok := aggPlan(a)
		if !ok {
			return nil, false
		}
		st.Aggs = append(st.Aggs, pa)
	}
	return st, true
}

func (c *countStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SCount, Schema: schemaPlan(c.Out())}, true
}

func (s *takeStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.STake, N: s.N}, true
}

func (s *topStage) toPlan() (*plan.Stage, bool) {
	keys, ok := sortKeysPlan(s.Keys)
	return &plan.Stage{Kind: plan.STop, N: s.N, Order: keys, SortTake: s.SortTake}, ok
}

func (s *sortStage) toPlan() (*plan.Stage, bool) {
	keys, ok := sortKeysPlan(s.Keys)
	return &plan.Stage{Kind: plan.SSort, Order: keys}, ok
}

func (s *distinctStage) toPlan() (*plan.Stage, bool) {
	ns, ok := exprNodes(s.Exprs)
	return &plan.Stage{Kind: plan.SDistinct, Schema: schemaPlan(s.Sch), Exprs: ns}, ok
}

// buildExprs builds nodes over in.
func buildExprs(nodes []*plan.Expr, in Schema) ([]*Expr, error) {
	out := make([]*Expr, len(nodes))
	for i, n := range nodes {
		e, err := buildExpr(n, in)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func buildSortKeys(keys []plan.SortKey, in Schema) ([]sortKey, error) {
	out := make([]sortKey, len(keys))
	for i, k := range keys {
		e, err := buildExpr(k.X, in)
		if err != nil {
			return nil, err
		}
		out[i] = sortKey{E: e, Desc: k.Desc, NullsLast: k.NullsLast}
	}
	return out, nil
}

// buildStage builds the stage of node ps over input schema in; actx is
// the query's range for the aggregations that read it. The stage's
// output schema must come out as the plan states it, or the sender and
// this node disagree and the stage is refused.
func buildStage(ps *plan.Stage, in Schema, actx agg.Context) (Stage, error) {
	st, err := buildStageOf(ps, in, actx)
	return checkedStage(ps, st, err)
}

// checkedStage names ps's kind in err, and refuses st when its output
// is not the schema ps records (a kind that keeps its input's schema
// records none).
func checkedStage(ps *plan.Stage, st Stage, err error) (Stage, error) {
	if err != nil {
		return nil, fmt.Errorf("%s stage: %w", ps.Kind, err)
	}
	if ps.Kind.SameSchema() {
		return st, nil
	}
	if got, want := st.Out(), schemaFromPlan(ps.Schema); !sameSchema(got, want) {
		return nil, fmt.Errorf("%s stage: its output is %v here, the plan says %v", ps.Kind, got, want)
	}
	return st, nil
}

func sameSchema(a, b Schema) bool {
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

func buildStageOf(ps *plan.Stage, in Schema, actx agg.Context) (Stage, error) {
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
		return &projectStage{Sch: sch, Exprs: exprs}, nil
	case plan.SPick:
		if len(ps.Idx) != len(ps.Schema) {
			return nil, fmt.Errorf("%d columns for %d names", len(ps.Idx), len(ps.Schema))
		}
		sch := make(Schema, len(ps.Idx))
		for i, j := range ps.Idx {
			if j < 0 || j >= len(in) {
				return nil, fmt.Errorf("column %d of %d", j, len(in))
			}
			sch[i] = ColDef{Name: ps.Schema[i].Name, Type: in[j].Type}
		}
		return &pickStage{Sch: sch, Idx: ps.Idx}, nil
	case plan.SSummarize:
		return buildSummarize(ps, in, actx)
	case plan.SCount:
		return &countStage{}, nil
	case plan.STake:
		if ps.N < 0 {
			return nil, fmt.Errorf("negative row count %d", ps.N)
		}
		return &takeStage{In: in, N: ps.N}, nil
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
			return &sortStage{In: in, Keys: keys}, nil
		}
		return &topStage{In: in, N: ps.N, Keys: keys, SortTake: ps.SortTake}, nil
	case plan.SParse:
		return buildParse(ps, in)
	case plan.SMvExpand:
		return buildMvExpand(ps, in)
	case plan.SRedact:
		return buildRedact(ps, in)
	case plan.SParseKv:
		return buildParseKv(ps, in)
	case plan.SDistinct:
		exprs, err := buildExprs(ps.Exprs, in)
		if err != nil {
			return nil, err
		}
		if len(exprs) != len(ps.Schema) {
			return nil, fmt.Errorf("%d expressions for %d columns", len(exprs), len(ps.Schema))
		}
		sch := make(Schema, len(exprs))
		for i, e := range exprs {
			sch[i] = ColDef{Name: ps.Schema[i].Name, Type: e.Typ}
		}
		return &distinctStage{Sch: sch, Exprs: exprs}, nil
	}
	return nil, fmt.Errorf("%w stage kind %q", plan.ErrUnsupported, ps.Kind)
}

// buildExtend replays planExtend: each expression sees the columns
// added before it, and writes its slot.
func buildExtend(ps *plan.Stage, in Schema) (Stage, error) {
	if len(ps.Slots) != len(ps.Exprs) {
		return nil, fmt.Errorf("%d slots for %d expressions", len(ps.Slots), len(ps.Exprs))
	}
	st := &extendStage{In: in, Sch: append(Schema(nil), in...), Valid: ps.Valid, Slots: ps.Slots}
	for i, n := range ps.Exprs {
		e, err := buildExpr(n, st.Sch)
		if err != nil {
			return nil, err
		}
		switch slot := ps.Slots[i]; {
		case slot == len(st.Sch) && slot < len(ps.Schema):
			st.Sch = append(st.Sch, ColDef{Name: ps.Schema[slot].Name, Type: e.Typ})
		case slot >= 0 && slot < len(st.Sch):
			if ps.Valid && st.Sch[slot].Type != e.Typ {
				return nil, fmt.Errorf("extend-valid column %s is %s, the value %s", st.Sch[slot].Name, st.Sch[slot].Type, e.Typ)
			}
			st.Sch[slot].Type = e.Typ
		default:
			return nil, fmt.Errorf("slot %d of %d columns", slot, len(st.Sch))
		}
		st.Exprs = append(st.Exprs, e)
	}
	return st, nil
}

// buildSummarize replays planSummarize and planAgg from the node.
func buildSummarize(ps *plan.Stage, in Schema, actx agg.Context) (Stage, error) {
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
	st := &summarizeStage{In: in, Keys: keys, TimeKey: ps.TimeKey, BinSize: ps.BinSize, BinCol: ps.BinCol}
	for i, k := range keys {
		name := ps.Schema[i].Name
		st.Sch = append(st.Sch, ColDef{Name: name, Type: k.Typ})
		st.KeyNames = append(st.KeyNames, name)
	}
	actx.BinSize = ps.BinSize
	ctx := &actx
	for i := range ps.Aggs {
		ac, err := buildAggCall(&ps.Aggs[i], in, ctx)
		if err != nil {
			return nil, err
		}
		for i, t := range ac.Outs {
			st.Sch = append(st.Sch, ColDef{Name: ac.Names[i], Type: t})
		}
		st.Aggs = append(st.Aggs, ac)
	}
	return st, nil
}

// buildAggCall replays planAgg from an aggregation's node.
func buildAggCall(pa *plan.Agg, in Schema, ctx *agg.Context) (*aggCall, error) {
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
		return nil, fmt.Errorf("%s expects %s, got %d", pa.Name, Arity(spec.MinArgs, spec.MaxArgs), n)
	}
	for _, i := range spec.ConstArgs {
		if i < len(args) && !args[i].IsConst() {
			return nil, fmt.Errorf("argument %d of %s must be a constant", i+1, pa.Name)
		}
	}
	ac := &aggCall{Spec: spec, Args: args, Ctx: ctx, Names: pa.Outs,
		Fname: pa.Name, Span: spanOf(pa.Pos)}
	for _, e := range args {
		ac.Types = append(ac.Types, e.Typ)
		ac.Consts = append(ac.Consts, e.ConstValue())
		var cf *condFilter
		if e.Typ == vector.Bool && !e.IsConst() {
			cf = condFilterOf(in, e.Node)
		}
		ac.Conds = append(ac.Conds, cf)
	}
	if ac.Outs, err = spec.Result(ac.Types); err != nil {
		return nil, fmt.Errorf("%s: %w", pa.Name, err)
	}
	if len(ac.Outs) != len(pa.Outs) {
		return nil, fmt.Errorf("%s has %d results here, the plan %d", pa.Name, len(ac.Outs), len(pa.Outs))
	}
	return ac, nil
}

// aggPlan is the node of an aggregation; ok is false when an argument
// has none.
func aggPlan(a *aggCall) (plan.Agg, bool) {
	args, ok := exprNodes(a.Args)
	return plan.Agg{Name: a.Fname, Args: args, Outs: a.Names, Pos: posOf(a.Span)}, ok
}
