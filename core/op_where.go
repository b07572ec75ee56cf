package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planWhere(in exec.Schema, w *parser.WhereOp) (*step, error) {
	c := p.compilerFor(in)
	pred, err := p.wherePredicate(c, in, w.Pred)
	if err != nil {
		return nil, err
	}
	if pred.Typ != vector.Bool && pred.Typ != vector.Dynamic && pred.Typ != vector.Null {
		return nil, semErr(w.Pred, "the where predicate must be bool, got %s", pred.Typ)
	}
	return one(plan.Stage{Kind: plan.SWhere, Pred: pred.Node}, in), nil
}

// wherePredicate compiles a predicate, expanding `* has "x"` (and the
// other string operators on `*`) over every string column wherever it
// stands in the predicate, so it combines with and, or and not.
func (p *planner) wherePredicate(c *compiler, in exec.Schema, e parser.Expr) (*typed, error) {
	return c.compile(expandStar(e, in))
}

// expandStar rewrites each `* op x` below and/or/not into a test of every
// string or dynamic column: some column matches for a positive operator,
// and no column fails for a negated one (`* !has "x"`: none has it), as a
// row-wide test reads.
func expandStar(e parser.Expr, in exec.Schema) parser.Expr {
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

func starTerms(b *parser.BinaryExpr, in exec.Schema) parser.Expr {
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
