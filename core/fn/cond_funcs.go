package fn

import (
	"github.com/aplite/aplite/vector"
)

// Conditional functions. A null condition counts as false, so the row
// takes the else branch (as where drops rows whose predicate is null).

const famCond = "conditional"

func init() {
	Register(&Func{Name: "iff", Aliases: []string{"iif"}, Family: famCond, MinArgs: 3, MaxArgs: 3,
		Result: iffResult, Eval: evalIff,
		Doc: "iff(condition, then, else): then where condition is true, else otherwise (including null)."})
	Register(&Func{Name: "case", Family: famCond, MinArgs: 3, MaxArgs: -1,
		Result: caseResult, Eval: evalCase,
		Doc: "case(pred1, value1, pred2, value2, ..., else): the value of the first true predicate, else the last argument."})
}

func iffResult(args []vector.Type) (vector.Type, error) {
	if err := Arg("iff", 0, args[0], KBool); err != nil {
		return vector.Null, err
	}
	return commonType(args[1:]), nil
}

func caseResult(args []vector.Type) (vector.Type, error) {
	if len(args)%2 == 0 {
		return vector.Null, errCaseArity
	}
	vals := make([]vector.Type, 0, len(args)/2+1)
	for i := 0; i < len(args)-1; i += 2 {
		if err := Arg("case", i, args[i], KBool); err != nil {
			return vector.Null, err
		}
		vals = append(vals, args[i+1])
	}
	return commonType(append(vals, args[len(args)-1])), nil
}

type caseArityError struct{}

func (caseArityError) Error() string {
	return "case needs predicate/value pairs followed by an else value (an odd number of arguments)"
}

var errCaseArity error = caseArityError{}

func evalIff(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return evalCase(nil, args, n)
}

// evalCase serves iff too: iff(c, a, b) is case(c, a, b).
func evalCase(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if len(args)%2 == 0 {
		return nil, errCaseArity
	}
	types := make([]vector.Type, 0, len(args)/2+1)
	for i := 1; i < len(args); i += 2 {
		types = append(types, args[i].Type)
	}
	types = append(types, args[len(args)-1].Type)
	t := commonType(types)
	choose := func(i int) *vector.Vector {
		for j := 0; j+1 < len(args); j += 2 {
			if b, ok := ToBool(args[j], i); ok && b {
				return args[j+1]
			}
		}
		return args[len(args)-1]
	}
	if AllConst(args...) {
		return vector.NewConst(t, boxAs(choose(0), 0, t), n.N), nil
	}
	return AppendLive(t, n, func(out *vector.Vector, i int) { appendAs(out, choose(i), i) }), nil
}

// appendAs appends row i of src to out, converting to out's type; the
// same-type case copies without boxing.
func appendAs(out, src *vector.Vector, i int) {
	if src.Type == out.Type {
		out.AppendFrom(src, i)
		return
	}
	out.AppendValue(boxAs(src, i, out.Type))
}

// boxAs returns row i of src boxed for a vector of type t.
func boxAs(src *vector.Vector, i int, t vector.Type) any {
	if t == vector.Dynamic {
		x, _ := ToDynamic(src, i)
		return x
	}
	return src.Value(i)
}
