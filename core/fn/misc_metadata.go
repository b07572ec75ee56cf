package fn

// Metadata functions: column_ifexists, cursor_current and ingestion_time,
// and ensure_field, which Axiom files under conversion but which the
// planner resolves the way it does column_ifexists.
// Their real values come from the engine, not from their arguments, so
// the registry only gives them a type and a fallback:
//
//   - column_ifexists(name, default): the planner, which knows the
//     dataset's schema, replaces the call with the column when it exists.
//     What is left to evaluate here is the other case, so Eval returns
//     the default and Result types the call by the default.
//   - cursor_current() and ingestion_time(): the planner substitutes the
//     row's cursor and _sysTime when the scan provides them; evaluated
//     without that, they are null. They are Volatile so that the planner
//     never folds them to that null before substituting.

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "column_ifexists", Family: "metadata", MinArgs: 2, MaxArgs: 2,
		Result: columnIfExistsResult, Eval: evalColumnIfExists,
		Doc: "The named field if the dataset has it, else the default (the planner resolves the field)."})
	Register(&Func{Name: "ensure_field", Family: famConv, MinArgs: 2, MaxArgs: 2,
		Result: Fixed(vector.Dynamic), Eval: evalMetaNull(vector.Dynamic),
		Doc: "The named field converted to the given type, or a null of that type when the dataset lacks it (the planner resolves the field)."})
	Register(&Func{Name: "cursor_current", Family: "metadata", MinArgs: 0, MaxArgs: 0, Volatile: true,
		Result: Fixed(vector.String), Eval: evalMetaNull(vector.String),
		Doc: "Cursor of the current row, for resuming a query (the planner supplies it; null otherwise)."})
	Register(&Func{Name: "ingestion_time", Family: "metadata", MinArgs: 0, MaxArgs: 0, Volatile: true,
		Result: Fixed(vector.DateTime), Eval: evalMetaNull(vector.DateTime),
		Doc: "When the row was ingested, its _sysTime (the planner supplies it; null otherwise)."})
}

func columnIfExistsResult(args []vector.Type) (vector.Type, error) {
	if len(args) != 2 {
		return vector.Null, fmt.Errorf("column_ifexists takes a field name and a default, got %d arguments", len(args))
	}
	if args[0] != vector.String && args[0] != vector.Null {
		return vector.Null, fmt.Errorf("argument 1 of column_ifexists must be a field name as a string, got %s", args[0])
	}
	return args[1], nil
}

func evalColumnIfExists(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return args[1], nil
}

func evalMetaNull(t vector.Type) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, _ []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Nulls(t, n.N), nil
	}
}
