package core

import (
	"strings"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// whereStage keeps the rows whose predicate is true (null and false drop
// the row). It narrows the batch's selection vector instead of copying.
type whereStage struct {
	in   schema
	pred *expr
	fast *fastFilter
	// push is what a scan directly below may absorb, worked out from the
	// predicate's plan node when planning, so the stage keeps no AST.
	push scanPush
}

// scanPush is what a where over a scan hands the scan: _time bounds that
// skip whole parts by their time range (exact when they are the whole
// predicate), tests that skip parts by column statistics, and term-filter
// tests that skip parts or granules of their rows.
type scanPush struct {
	lo, hi   *int64
	exact    bool
	prune    []func(store.Part) bool
	granules []func(store.Part) []bool
}

// newWhereStage plans what a scan below may skip for pred over in, and
// its selection kernel, from the predicate's plan node (plan_push.go).
func newWhereStage(in schema, pred *expr) *whereStage {
	return &whereStage{in: in, pred: pred, fast: fastFilterOf(in, pred.node), push: pushOf(in, pred.node)}
}

func (p *planner) planWhere(in schema, w *parser.WhereOp) (stage, error) {
	c := p.compilerFor(in)
	pred, err := p.wherePredicate(c, in, w.Pred)
	if err != nil {
		return nil, err
	}
	if pred.typ != vector.Bool && pred.typ != vector.Dynamic && pred.typ != vector.Null {
		return nil, semErr(w.Pred, "the where predicate must be bool, got %s", pred.typ)
	}
	return newWhereStage(in, pred), nil
}

// wherePredicate compiles a predicate, expanding `* has "x"` (and the
// other string operators on `*`) over every string column wherever it
// stands in the predicate, so it combines with and, or and not.
func (p *planner) wherePredicate(c *compiler, in schema, e parser.Expr) (*expr, error) {
	return c.compile(expandStar(e, in))
}

// expandStar rewrites each `* op x` below and/or/not into a test of every
// string or dynamic column: some column matches for a positive operator,
// and no column fails for a negated one (`* !has "x"`: none has it), as a
// row-wide test reads.
func expandStar(e parser.Expr, in schema) parser.Expr {
	switch x := e.(type) {
	case *parser.CallExpr:
		if x.Name == "not" && len(x.Args) == 1 {
			return &parser.CallExpr{Sp: x.Sp, Name: x.Name, Args: []parser.Expr{expandStar(x.Args[0], in)}}
		}
	case *parser.BinaryExpr:
		if x.Op == "and" || x.Op == "or" {
			return &parser.BinaryExpr{Sp: x.Sp, Op: x.Op, OpPos: x.OpPos, L: expandStar(x.L, in), R: expandStar(x.R, in)}
		}
		if _, star := x.L.(*parser.StarExpr); star {
			return starTerms(x, in)
		}
	}
	return e
}

func starTerms(b *parser.BinaryExpr, in schema) parser.Expr {
	join, none := "or", false
	if strings.HasPrefix(b.Op, "!") {
		join, none = "and", true
	}
	var acc parser.Expr
	for _, col := range in {
		if col.Type != vector.String && col.Type != vector.Dynamic {
			continue
		}
		term := &parser.BinaryExpr{Sp: b.Sp, Op: b.Op, OpPos: b.OpPos, L: &parser.Ident{Sp: b.L.Span(), Name: col.Name}, R: b.R}
		if acc == nil {
			acc = term
		} else {
			acc = &parser.BinaryExpr{Sp: b.Sp, Op: join, L: acc, R: term}
		}
	}
	if acc == nil {
		return &parser.Literal{Sp: b.Sp, Kind: parser.LitBool, Type: vector.Bool, Value: none}
	}
	return acc
}

func (w *whereStage) out() schema { return w.in }

func (w *whereStage) keepsNothing() {}

func (w *whereStage) apply(x *execCtx, b *batch) (*batch, error) {
	if w.fast != nil {
		sel, ok, err := w.fast.apply(b)
		if err != nil {
			return nil, err
		}
		if ok {
			if len(sel) == 0 {
				return nil, nil
			}
			if b.Sel == nil && len(sel) == b.N {
				return b, nil
			}
			b.Sel = sel
			return b, nil
		}
	}
	v, err := w.pred.run(x, b)
	if err != nil {
		return nil, err
	}
	sel := filterSel(v, b)
	if len(sel) == 0 {
		return nil, nil
	}
	if len(sel) == b.N && b.Sel == nil {
		return b, nil
	}
	b.Sel = sel
	return b, nil
}

// filterSel returns the live rows of b where v is true.
func filterSel(v *vector.Vector, b *batch) []int32 {
	if v.Type != vector.Bool {
		v = castVectorSel(v, vector.Bool, b.Sel)
	}
	if v.Type == vector.Null || v.Const {
		if v.Type == vector.Null || v.IsNull(0) || !v.Bool(0) {
			return nil
		}
		return b.liveRows()
	}
	bools, valid := v.Bools, v.Valid
	if b.Sel != nil {
		out := b.Sel[:0:0]
		for _, i := range b.Sel {
			if bools[i] && (valid == nil || valid.Get(int(i))) {
				out = append(out, i)
			}
		}
		return out
	}
	out := make([]int32, 0, b.N/4+8)
	if valid == nil {
		for i, t := range bools[:b.N] {
			if t {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for i, t := range bools[:b.N] {
		if t && valid.Get(i) {
			out = append(out, int32(i))
		}
	}
	return out
}
