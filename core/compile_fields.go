package core

import (
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// ensureField is ensure_field(name, typeof(T)) (Axiom's conversion
// functions): the field converted to T when the input has it, else a null
// of type T. Like column_ifexists it is decided at plan time, from the
// Schema, so a query over data that lacks the field still plans. The
// value is converted so the column has type T either way: a later stage
// sees the same type whether or not this dataset had the field.
func (c *compiler) ensureField(call *parser.CallExpr) (*typed, error) {
	if len(call.Args) != 2 {
		return nil, semErr(call, "ensure_field expects 2 arguments, got %d", len(call.Args))
	}
	lit, ok := call.Args[0].(*parser.Literal)
	if !ok || lit.Kind != parser.LitString {
		return nil, semErr(call.Args[0], "ensure_field: the first argument must be a field name as a string literal")
	}
	t, ok := fieldType(call.Args[1])
	if !ok {
		return nil, semErr(call.Args[1], "ensure_field: the second argument must be a type, as typeof(string)")
	}
	if i := c.in.Index(lit.Value.(string)); i >= 0 {
		return castExpr(c.fc, colExpr(i, c.in[i], call.Sp), t)
	}
	return constExpr(t, nil, call.Sp), nil
}

// fieldType reads typeof(T), or the type's name as a string literal.
func fieldType(e parser.Expr) (vector.Type, bool) {
	switch x := e.(type) {
	case *parser.CallExpr:
		if x.Name == "typeof" && len(x.Args) == 1 {
			return fieldType(x.Args[0])
		}
	case *parser.TypeExpr:
		return x.Type, true
	case *parser.Literal:
		if x.Kind == parser.LitString {
			return vector.ParseType(x.Value.(string))
		}
	}
	return vector.Null, false
}
