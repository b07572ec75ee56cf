package core

import (
	"regexp"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// searchSource plans `search [kind=...] [in (T*)] predicate` as a scan
// of the named datasets (all readable datasets by default) filtered by
// the predicate with search's term rules.
func (p *planner) searchSource(s *parser.SearchOp) (*plan.Source, error) {
	var names []string
	if len(s.In) == 0 {
		names = p.matchDatasets("*")
	}
	for _, t := range s.In {
		if t.Pattern {
			names = append(names, p.matchDatasets(t.Name)...)
		} else {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return nil, semErr(s, "search: no dataset to search")
	}
	snaps, err := p.snapshots(s, names)
	if err != nil {
		return nil, err
	}
	scan := p.newScan(snaps)
	scan.WithSource = "$table"
	scan.Schema = append(scan.Schema, exec.ColDef{Name: "$table", Type: vector.String})
	// The predicate runs in the scan's workers, and its term tests skip
	// blocks (op_termprune.go).
	st, err := p.planSearch(exec.Schema(scan.Schema), s)
	if err != nil {
		return nil, err
	}
	scan.Pred = st.nodes[0].Pred
	return scan, nil
}

// planSearch compiles a search predicate into a where stage.
func (p *planner) planSearch(in exec.Schema, s *parser.SearchOp) (*step, error) {
	cs := s.Kind == "case_sensitive"
	pred := rewriteSearch(s.Pred, in, cs)
	c := p.compilerFor(in)
	e, err := c.compile(pred)
	if err != nil {
		return nil, err
	}
	return one(plan.Stage{Kind: plan.SWhere, Pred: e.Node}, in), nil
}

// rewriteSearch turns search's shorthand into ordinary predicates: a bare
// string means "some string column has it" (with * wildcards choosing
// hasprefix, hassuffix, contains or a regex), `col:"x"` means col has x,
// and `*` matches every row.
func rewriteSearch(e parser.Expr, in exec.Schema, cs bool) parser.Expr {
	switch x := e.(type) {
	case *parser.StarExpr:
		return &parser.Literal{Sp: x.Sp, Kind: parser.LitBool, Type: vector.Bool, Value: true}
	case *parser.Literal:
		if x.Kind == parser.LitString {
			return anyColumn(x, in, func(col parser.Expr) parser.Expr { return termMatch(col, x, cs) })
		}
	case *parser.BinaryExpr:
		switch x.Op {
		case "and", "or":
			return &parser.BinaryExpr{Sp: x.Sp, Op: x.Op, L: rewriteSearch(x.L, in, cs), R: rewriteSearch(x.R, in, cs)}
		case ":":
			if lit, ok := x.R.(*parser.Literal); ok && lit.Kind == parser.LitString {
				return termMatch(x.L, lit, cs)
			}
			return &parser.BinaryExpr{Sp: x.Sp, Op: "has", L: x.L, R: x.R}
		}
		if _, star := x.L.(*parser.StarExpr); star {
			return anyColumn(x, in, func(col parser.Expr) parser.Expr {
				return &parser.BinaryExpr{Sp: x.Sp, Op: x.Op, L: col, R: x.R}
			})
		}
	case *parser.CallExpr:
		if x.Name == "not" && len(x.Args) == 1 {
			return &parser.CallExpr{Sp: x.Sp, Name: "not", Args: []parser.Expr{rewriteSearch(x.Args[0], in, cs)}}
		}
	}
	return e
}

// anyColumn ors a test over every string column.
func anyColumn(n parser.Node, in exec.Schema, test func(col parser.Expr) parser.Expr) parser.Expr {
	var acc parser.Expr
	for _, c := range in {
		if c.Type != vector.String || c.Name == "$table" {
			continue
		}
		t := test(&parser.Ident{Sp: n.Span(), Name: c.Name})
		if acc == nil {
			acc = t
		} else {
			acc = &parser.BinaryExpr{Sp: n.Span(), Op: "or", L: acc, R: t}
		}
	}
	if acc == nil {
		return &parser.Literal{Sp: n.Span(), Kind: parser.LitBool, Type: vector.Bool, Value: false}
	}
	return acc
}

// termMatch applies search's wildcard rules to one column.
func termMatch(col parser.Expr, lit *parser.Literal, cs bool) parser.Expr {
	s := lit.Value.(string)
	sfx := ""
	if cs {
		sfx = "_cs"
	}
	mk := func(op, v string) parser.Expr {
		return &parser.BinaryExpr{Sp: lit.Sp, Op: op, L: col, R: &parser.Literal{Sp: lit.Sp, Kind: parser.LitString, Type: vector.String, Value: v}}
	}
	inner := strings.Trim(s, "*")
	switch {
	case !strings.ContainsAny(s, "*?"):
		return mk("has"+sfx, s)
	case strings.HasPrefix(s, "*") && strings.HasSuffix(s, "*") && !strings.ContainsAny(inner, "*?"):
		return mk("contains"+sfx, inner)
	case strings.HasSuffix(s, "*") && !strings.ContainsAny(inner, "*?"):
		return mk("hasprefix"+sfx, inner)
	case strings.HasPrefix(s, "*") && !strings.ContainsAny(inner, "*?"):
		return mk("hassuffix"+sfx, inner)
	}
	re := regexp.QuoteMeta(s)
	re = strings.ReplaceAll(strings.ReplaceAll(re, `\*`, ".*"), `\?`, ".")
	re = `\b` + re + `\b`
	if !cs {
		re = "(?i)" + re
	}
	return mk("matches regex", re)
}
