package core

import (
	"strings"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// compiler turns AST expressions into evaluators against one input schema.
type compiler struct {
	// fc is the query's function context constants fold with (its
	// clock, range and seed); nothing of a run.
	fc   *fn.Context
	in   exec.Schema
	lets map[string]*typed // scalar let bindings and request variables
	// side, when set, resolves $left / $right member access (join conditions).
	side func(which string, name string, n parser.Node) (*typed, error)
	// strict is `set stricttypes`: comparisons need matching types.
	strict bool
	// noCache, when set, receives why the query's answer must not be
	// cached (a call whose value varies between runs).
	noCache *string
}

// compile compiles one scalar expression.
func (c *compiler) compile(e parser.Expr) (*typed, error) {
	switch e := e.(type) {
	case *parser.Literal:
		return constExpr(e.Type, e.Value, e.Sp), nil
	case *parser.Ident:
		return c.ident(e)
	case *parser.MemberExpr:
		return c.member(e)
	case *parser.IndexExpr:
		return c.Index(e)
	case *parser.SliceExpr:
		return c.slice(e)
	case *parser.BinaryExpr:
		return c.binary(e)
	case *parser.UnaryExpr:
		return c.unary(e)
	case *parser.InExpr:
		return c.inList(e)
	case *parser.BetweenExpr:
		return c.between(e)
	case *parser.CallExpr:
		return c.call(e)
	case *parser.StarExpr:
		return nil, semErr(e, "'*' is not allowed here")
	case *parser.NamedArg:
		return nil, semErr(e, "named argument %q is not allowed here", e.Name)
	case *parser.TypeExpr:
		return nil, semErr(e, "a type name is not a value")
	case *parser.SubqueryExpr:
		return nil, semErr(e, "a tabular expression is not allowed here")
	}
	return nil, semErr(e, "unsupported expression")
}

// ident resolves a bare or bracketed name: a column, then a let binding.
func (c *compiler) ident(id *parser.Ident) (*typed, error) {
	if i := c.in.Index(id.Name); i >= 0 {
		return colExpr(i, c.in[i], id.Sp), nil
	}
	if l, ok := c.lets[id.Name]; ok {
		cp := *l
		cp.Span = id.Sp
		return &cp, nil
	}
	switch id.Name {
	case "true", "false":
		return constExpr(vector.Bool, id.Name == "true", id.Sp), nil
	}
	return nil, semErr(id, "unknown field or variable %q%s", id.Name, c.suggest(id.Name))
}

// suggest offers a close column name for a misspelt one.
func (c *compiler) suggest(name string) string {
	lower := strings.ToLower(name)
	names := make([]string, len(c.in))
	for i, col := range c.in {
		if strings.ToLower(col.Name) == lower {
			return " (did you mean " + quoteName(col.Name) + "?)"
		}
		names[i] = col.Name
	}
	return didYouMean(name, names)
}

func quoteName(s string) string { return "'" + s + "'" }

// dottedName flattens a chain of member accesses over identifiers into
// "a.b.c"; ok is false when the chain contains anything else.
func dottedName(e parser.Expr) (string, bool) {
	switch e := e.(type) {
	case *parser.Ident:
		return e.Name, true
	case *parser.MemberExpr:
		if p, ok := dottedName(e.X); ok {
			return p + "." + e.Name, true
		}
	}
	return "", false
}

// member resolves `a.b`: a flattened field called "a.b" wins over member
// access into a dynamic column a, which is how Axiom stores nested JSON.
func (c *compiler) member(m *parser.MemberExpr) (*typed, error) {
	if name, ok := dottedName(m); ok {
		if i := c.in.Index(name); i >= 0 {
			return colExpr(i, c.in[i], m.Sp), nil
		}
		if id, ok := m.X.(*parser.Ident); ok && c.side != nil && (id.Name == "$left" || id.Name == "$right") {
			return c.side(id.Name, m.Name, m)
		}
	}
	x, err := c.compile(m.X)
	if err != nil {
		if name, ok := dottedName(m); ok {
			return nil, semErr(m, "unknown field %q%s", name, c.suggest(name))
		}
		return nil, err
	}
	key := constExpr(vector.String, m.Name, m.Sp)
	return c.dynIndex(m, x, key)
}

// Index resolves `x[i]` and `x['key']` on dynamic values.
func (c *compiler) Index(ix *parser.IndexExpr) (*typed, error) {
	x, err := c.compile(ix.X)
	if err != nil {
		return nil, err
	}
	k, err := c.compile(ix.Index)
	if err != nil {
		return nil, err
	}
	return c.dynIndex(ix, x, k)
}

// call compiles a function call; aggregations are rejected here because
// only summarize and make-series may evaluate them.
func (c *compiler) call(call *parser.CallExpr) (*typed, error) {
	name := call.Name
	switch {
	case name == "column_ifexists":
		return c.columnIfExists(call)
	case isPackStar(call):
		return c.packStar(call)
	case name == "ensure_field":
		return c.ensureField(call)
	case name == "ingestion_time" && len(call.Args) == 0:
		if i := c.in.Index(store.SysTimeField); i >= 0 && c.in[i].Type == vector.DateTime {
			e := colExpr(i, c.in[i], call.Sp)
			e.Name = "" // a computed value, not the _sysTime column
			return e, nil
		}
	case name == "cursor_current" && len(call.Args) == 0:
		if i := c.in.Index(store.TimeField); i >= 0 && c.in[i].Type == vector.DateTime {
			e := &typed{Typ: vector.String, Col: -1, Span: call.Sp, Node: &plan.Expr{Kind: plan.KCursor, Type: vector.String, Index: i, Pos: posOf(call.Sp)}}
			return e, nil
		}
	}
	f := fn.Lookup(name)
	if f == nil {
		if agg.Lookup(name) != nil {
			return nil, semErr(call, "aggregation %s() can only be used in summarize or make-series", name)
		}
		return nil, semErr(call, "unknown function %q%s", name, didYouMean(name, functionNames()))
	}
	args := make([]*typed, len(call.Args))
	for i, a := range call.Args {
		if t, ok := a.(*parser.TypeExpr); ok {
			args[i] = constExpr(vector.String, t.Type.String(), t.Sp)
			continue
		}
		e, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	return c.callFunc(call, f, args)
}

// columnIfExists is column_ifexists(name, default): the column when the
// input has it, else the default, decided at plan time.
func (c *compiler) columnIfExists(call *parser.CallExpr) (*typed, error) {
	if len(call.Args) != 2 {
		return nil, semErr(call, "column_ifexists expects 2 arguments, got %d", len(call.Args))
	}
	lit, ok := call.Args[0].(*parser.Literal)
	if !ok || lit.Kind != parser.LitString {
		return nil, semErr(call.Args[0], "column_ifexists: the first argument must be a string literal")
	}
	if i := c.in.Index(lit.Value.(string)); i >= 0 {
		return colExpr(i, c.in[i], call.Sp), nil
	}
	return c.compile(call.Args[1])
}
