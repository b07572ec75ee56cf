package core

import (
	"fmt"
	"strings"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

// splitAggExpr handles a summarize entry that computes over aggregations,
// such as `v = 100 * count()`: every aggregation call inside becomes a
// hidden aggregation column, and the expression itself is evaluated after
// the summarize. It returns the hidden aggregations and the rewritten
// expression, or ok=false when e is a plain aggregation call.
func splitAggExpr(e parser.Expr, next *int) (hidden []*parser.NamedExpr, rewritten parser.Expr, ok bool) {
	if call, isCall := e.(*parser.CallExpr); isCall && agg.Lookup(call.Name) != nil {
		return nil, nil, false
	}
	var rw func(parser.Expr) parser.Expr
	rw = func(x parser.Expr) parser.Expr {
		switch x := x.(type) {
		case *parser.CallExpr:
			if agg.Lookup(x.Name) != nil {
				name := fmt.Sprintf("__agg%d", *next)
				*next++
				hidden = append(hidden, &parser.NamedExpr{Sp: x.Sp, Name: name, Expr: x})
				return &parser.Ident{Sp: x.Sp, Name: name}
			}
			args := make([]parser.Expr, len(x.Args))
			for i, a := range x.Args {
				args[i] = rw(a)
			}
			return &parser.CallExpr{Sp: x.Sp, Name: x.Name, Args: args}
		case *parser.BinaryExpr:
			return &parser.BinaryExpr{Sp: x.Sp, Op: x.Op, OpPos: x.OpPos, L: rw(x.L), R: rw(x.R)}
		case *parser.UnaryExpr:
			return &parser.UnaryExpr{Sp: x.Sp, Op: x.Op, X: rw(x.X)}
		case *parser.BetweenExpr:
			return &parser.BetweenExpr{Sp: x.Sp, Not: x.Not, X: rw(x.X), Lo: rw(x.Lo), Hi: rw(x.Hi)}
		case *parser.InExpr:
			list := make([]parser.Expr, len(x.List))
			for i, l := range x.List {
				list[i] = rw(l) // a list may read columns, and so aggregations
			}
			return &parser.InExpr{Sp: x.Sp, Op: x.Op, X: rw(x.X), List: list}
		case *parser.MemberExpr:
			return &parser.MemberExpr{Sp: x.Sp, X: rw(x.X), Name: x.Name}
		case *parser.IndexExpr:
			return &parser.IndexExpr{Sp: x.Sp, X: rw(x.X), Index: rw(x.Index)}
		case *parser.SliceExpr:
			s := &parser.SliceExpr{Sp: x.Sp, X: rw(x.X)}
			if x.Lo != nil {
				s.Lo = rw(x.Lo)
			}
			if x.Hi != nil {
				s.Hi = rw(x.Hi)
			}
			return s
		}
		return x
	}
	rewritten = rw(e)
	return hidden, rewritten, len(hidden) > 0
}

// planSummarizeExprs plans a summarize whose entries may compute over
// aggregations: the summarize of the hidden aggregations, an extend of the
// expressions, and a projection that restores the requested column order.
func (p *planner) planSummarizeExprs(in exec.Schema, op *parser.SummarizeOp) (*step, error) {
	next := 0
	var aggs []*parser.NamedExpr
	type post struct {
		name string
		expr parser.Expr
	}
	var posts []post
	var order []string
	for i, ne := range op.Aggs {
		hidden, rw, ok := splitAggExpr(ne.Expr, &next)
		if !ok {
			aggs = append(aggs, ne)
			order = append(order, "")
			continue
		}
		aggs = append(aggs, hidden...)
		name := ne.Name
		if name == "" {
			name = fmt.Sprintf("Column%d", i+1)
		}
		posts = append(posts, post{name, rw})
		order = append(order, name)
	}
	if len(posts) == 0 {
		st, _, err := p.planSummarize(in, op)
		return st, err
	}
	sumStep, keys, err := p.planSummarize(in, &parser.SummarizeOp{Sp: op.Sp, Aggs: aggs, By: op.By})
	if err != nil {
		return nil, err
	}
	sumAggs := sumStep.nodes[0].Aggs
	var cols []*parser.NamedExpr
	for _, pe := range posts {
		cols = append(cols, &parser.NamedExpr{Name: pe.name, Expr: pe.expr})
	}
	ext, err := p.planExtend(sumStep.out, &parser.ExtendOp{Sp: op.Sp, Cols: cols})
	if err != nil {
		return nil, err
	}
	// Keep the keys, then each entry in the order written, dropping hidden columns.
	es := ext.out
	pick := &picked{}
	for _, k := range keys {
		i := es.Index(k)
		pick.Sch, pick.Idx = append(pick.Sch, es[i]), append(pick.Idx, i)
	}
	hiddenAgg := func(a plan.Agg) bool { return strings.HasPrefix(a.Outs[0], "__agg") }
	ai := 0
	for _, name := range order {
		if name == "" {
			// A plain aggregation: its columns as the summarize named them.
			for ai < len(sumAggs) && hiddenAgg(sumAggs[ai]) {
				ai++
			}
			for _, n := range sumAggs[ai].Outs {
				i := es.Index(n)
				pick.Sch, pick.Idx = append(pick.Sch, es[i]), append(pick.Idx, i)
			}
			ai++
			continue
		}
		i := es.Index(name)
		pick.Sch, pick.Idx = append(pick.Sch, es[i]), append(pick.Idx, i)
	}
	last := pickStep(pick.Sch, pick.Idx)
	return &step{nodes: append(append(sumStep.nodes, ext.nodes...), last.nodes...), out: last.out}, nil
}
