package core

import (
	"fmt"
	"strings"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planSummarize plans a summarize of plain aggregations; keys are its
// key columns' names.
func (p *planner) planSummarize(in exec.Schema, op *parser.SummarizeOp) (st *step, keys []string, err error) {
	var sch exec.Schema
	ps := plan.Stage{Kind: plan.SSummarize, TimeKey: -1, BinCol: -1}
	c := p.compilerFor(in)
	for i, ne := range op.By {
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, nil, err
		}
		name := ne.Name
		if name == "" {
			name = byName(ne.Expr, e, sch)
		}
		if bin, ok := timeBin(ne.Expr, e, c); ok && ps.TimeKey < 0 {
			ps.TimeKey, ps.BinSize = i, bin
			if id, ok := ne.Expr.(*parser.CallExpr).Args[0].(*parser.Ident); ok && bin > 0 {
				ps.BinCol = in.Index(id.Name)
			}
		}
		ps.Keys = append(ps.Keys, e.Node)
		sch = append(sch, exec.ColDef{Name: name, Type: e.Typ})
		keys = append(keys, name)
	}
	for _, ne := range op.Aggs {
		ac, err := p.planAgg(c, in, ne, keys)
		if err != nil {
			return nil, nil, err
		}
		for i, t := range ac.outs {
			name := ac.node.Outs[i]
			if j := sch.Index(name); j >= 0 {
				name = uniqueName(sch, name)
				ac.node.Outs[i] = name
			}
			sch = append(sch, exec.ColDef{Name: name, Type: t})
		}
		ps.Aggs = append(ps.Aggs, ac.node)
	}
	ps.Schema = fields(sch)
	return one(ps, sch), keys, nil
}

// aggCall is an aggregation as planned: its node and result types.
type aggCall struct {
	node plan.Agg
	outs []vector.Type
}

// uniqueName appends a numeric suffix until name is unused.
func uniqueName(s exec.Schema, name string) string {
	for i := 1; ; i++ {
		n := fmt.Sprintf("%s%d", name, i)
		if s.Index(n) < 0 {
			return n
		}
	}
}

// byName is the default name of a by-expression: the column itself, or
// the column a bin()/floor()-style call groups, else Column1, Column2, ...
func byName(ast parser.Expr, e *typed, s exec.Schema) string {
	if e.Col >= 0 && e.Name != "" {
		return e.Name
	}
	if call, ok := ast.(*parser.CallExpr); ok && len(call.Args) > 0 {
		if n, ok := dottedName(call.Args[0]); ok {
			return n
		}
	}
	if n, ok := dottedName(ast); ok {
		return n
	}
	return nextColumnName(s)
}

// timeBin recognises bin(_time, constant) and returns the bin size.
func timeBin(ast parser.Expr, e *typed, c *compiler) (int64, bool) {
	call, ok := ast.(*parser.CallExpr)
	if !ok || (call.Name != "bin" && call.Name != "bin_auto" && call.Name != "floor") || e.Typ != vector.DateTime {
		return 0, false
	}
	if n, ok := dottedName(call.Args[0]); !ok || n != "_time" {
		return 0, false
	}
	if call.Name == "bin_auto" {
		return autoBin(c.fc), true
	}
	if len(call.Args) < 2 {
		return 0, false
	}
	w, err := c.compile(call.Args[1])
	if err != nil || !w.IsConst() || w.ConstValue() == nil || w.Typ != vector.TimeSpan {
		return 0, false
	}
	return w.constInt(), true
}

// autoBin is bin_auto's width: about 100 bins over the query range.
func autoBin(fc *fn.Context) int64 {
	if fc.Start.IsZero() || fc.End.IsZero() {
		return int64(60e9)
	}
	span := fc.End.Sub(fc.Start).Nanoseconds()
	for _, w := range []int64{1e9, 5e9, 10e9, 30e9, 60e9, 300e9, 600e9, 1800e9, 3600e9, 3 * 3600e9, 6 * 3600e9, 12 * 3600e9, 86400e9, 7 * 86400e9} {
		if span/w <= 100 {
			return w
		}
	}
	return 30 * 86400e9
}

// planAgg plans one `[name =] agg(args)` entry.
func (p *planner) planAgg(c *compiler, in exec.Schema, ne *parser.NamedExpr, keyNames []string) (*aggCall, error) {
	call, ok := ne.Expr.(*parser.CallExpr)
	if !ok {
		return nil, semErr(ne.Expr, "summarize expects an aggregation function call such as count() or avg(x)")
	}
	spec := agg.Lookup(call.Name)
	if spec == nil {
		return nil, semErr(call, "unknown aggregation function %q%s", call.Name, didYouMean(call.Name, aggregationNames()))
	}
	args := expandStarArgs(call, in, keyNames)
	if len(args) < spec.MinArgs || (spec.MaxArgs >= 0 && len(args) > spec.MaxArgs) {
		return nil, semErr(call, "%s expects %s, got %d", call.Name, exec.Arity(spec.MinArgs, spec.MaxArgs), len(args))
	}
	var es []*typed
	var types []vector.Type
	var argNames []string
	for _, a := range args {
		if na, ok := a.(*parser.NamedArg); ok {
			argNames = append(argNames, na.Name)
			a = na.Value
		} else {
			argNames = append(argNames, "")
		}
		e, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
		types = append(types, e.Typ)
	}
	for _, i := range spec.ConstArgs {
		if i < len(es) && !es[i].IsConst() {
			return nil, semErr(args[i], "argument %d of %s must be a constant", i+1, call.Name)
		}
	}
	outs, err := spec.Result(types)
	if err != nil {
		return nil, callErr(call, call.Name, err)
	}
	ac := &aggCall{node: plan.Agg{Name: call.Name, Outs: aggNames(ne.Name, call, es, len(outs), argNames), Pos: posOf(call.Sp)}, outs: outs}
	for _, e := range es {
		ac.node.Args = append(ac.node.Args, e.Node)
	}
	return ac, nil
}

// aggNames gives the output column names: the alias, else Axiom's
// defaults (count_, avg_x, make_set_x, percentile_x_95 ...); arg_max and
// arg_min name their extra columns after the arguments.
func aggNames(alias string, call *parser.CallExpr, args []*typed, outs int, argNames []string) []string {
	names := make([]string, outs)
	col := func(i int) string {
		if i < len(argNames) && argNames[i] != "" {
			return argNames[i]
		}
		if i < len(args) && args[i].Col >= 0 {
			return args[i].Name
		}
		if i < len(call.Args) {
			if n, ok := dottedName(call.Args[i]); ok {
				return n
			}
		}
		return ""
	}
	base := call.Name + "_"
	if n := col(0); n != "" && call.Name != "count" {
		base = call.Name + "_" + n
	}
	if call.Name == "arg_max" || call.Name == "arg_min" {
		// KQL names the first column after the expression's column, or
		// max_/min_ plus the first column it reads.
		if n := col(0); n != "" {
			base = n
		} else if id := firstIdent(call.Args[0]); id != "" {
			base = strings.TrimPrefix(call.Name, "arg_") + "_" + id
		}
	}
	if alias != "" {
		base = alias
	}
	names[0] = base
	for i := 1; i < len(names); i++ {
		n := col(i)
		if n == "" {
			n = fmt.Sprintf("%s_arg%d", call.Name, i)
		}
		names[i] = n
	}
	return names
}

// expandStarArgs expands `*` in arg_max(x, *) / arg_min(x, *) into every
// input column except the group keys and the column the first argument
// names, which the output already has.
func expandStarArgs(call *parser.CallExpr, in exec.Schema, keyNames []string) []parser.Expr {
	var out []parser.Expr
	skip := map[string]bool{}
	for _, k := range keyNames {
		skip[k] = true
	}
	if len(call.Args) > 0 {
		if n, ok := dottedName(call.Args[0]); ok {
			skip[n] = true
		}
	}
	for _, a := range call.Args {
		if _, star := a.(*parser.StarExpr); star {
			for _, col := range in {
				if !skip[col.Name] {
					out = append(out, &parser.Ident{Sp: a.Span(), Name: col.Name})
				}
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// firstIdent returns the first identifier an expression reads, or "".
func firstIdent(e parser.Expr) string {
	found := ""
	parser.Walk(e, func(n parser.Node) bool {
		if found != "" {
			return false
		}
		if id, ok := n.(*parser.Ident); ok {
			found = id.Name
			return false
		}
		return true
	})
	return found
}
