package fn

import (
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// Type predicates. They never return null: a null value is not of any
// type, so they answer false.

const famType = "type"

func init() {
	Register(&Func{Name: "isstring", Family: famType, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: typeTest(func(x any) bool { _, ok := x.(string); return ok }),
		Doc: "True when the value is a string."})
	Register(&Func{Name: "isreal", Family: famType, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: typeTest(func(x any) bool { _, ok := x.(float64); return ok }),
		Doc: "True when the value is a real number."})
	Register(&Func{Name: "ismap", Family: famType, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: typeTest(func(x any) bool { _, ok := x.(map[string]any); return ok }),
		Doc: "True when the value is a property bag (map)."})
	Register(&Func{Name: "isutf8", Family: famType, MinArgs: 1, MaxArgs: 1,
		Result: Sig("isutf8", vector.Bool, KString), Eval: strTest(utf8.ValidString),
		Doc: "True when the string is valid UTF-8."})
	Register(&Func{Name: "iscc", Family: famType, MinArgs: 1, MaxArgs: 1,
		Result: Sig("iscc", vector.Bool, KString), Eval: strTest(isCreditCard),
		Doc: "True when the value looks like a credit card number: 12 to 19 digits (spaces and dashes allowed) passing the Luhn check."})
	Register(&Func{Name: "isimei", Family: famType, MinArgs: 1, MaxArgs: 1,
		Result: Sig("isimei", vector.Bool, KString), Eval: strTest(isIMEI),
		Doc: "True when the value is a 15-digit IMEI number passing the Luhn check."})
}

// strTest builds a predicate over a row's string form; null is false.
func strTest(pred func(string) bool) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		out := MapStrings(vector.Bool, args[0], n, func(s string) (bool, bool) { return pred(s), true })
		return nullsFalse(out), nil
	}
}

// nullsFalse turns the null rows of a bool vector into false.
func nullsFalse(v *vector.Vector) *vector.Vector {
	if v.Valid == nil {
		return v
	}
	if v.Const {
		return vector.NewConst(vector.Bool, !v.IsNull(0) && v.Bool(0), v.Len)
	}
	b := make([]bool, v.Len)
	for i := range b {
		b[i] = !v.IsNull(i) && v.Bool(i)
	}
	return &vector.Vector{Type: vector.Bool, Len: v.Len, Bools: b}
}

// digitsOnly returns the digits of s, allowing the separators sep, or
// false when s holds anything else.
func digitsOnly(s, sep string) ([]byte, bool) {
	d := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			d = append(d, c-'0')
		case sep != "" && (c == sep[0] || (len(sep) > 1 && c == sep[1])):
		default:
			return nil, false
		}
	}
	return d, true
}

// luhn reports whether the digits pass the Luhn checksum.
func luhn(d []byte) bool {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		x := int(d[i])
		if (len(d)-1-i)%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

func isCreditCard(s string) bool {
	d, ok := digitsOnly(s, " -")
	return ok && len(d) >= 12 && len(d) <= 19 && luhn(d)
}

func isIMEI(s string) bool {
	d, ok := digitsOnly(s, "")
	return ok && len(d) == 15 && luhn(d)
}
