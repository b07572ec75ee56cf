package fn

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// Basic string functions: length, case, concatenation, comparison and
// slicing. Lengths and indexes count characters (Unicode code points),
// not bytes, except string_size.

const famString = "string"

func init() {
	Register(&Func{Name: "strlen", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("strlen", vector.Int, KString),
		Eval: strFunc(vector.Int, func(s string) (int64, bool) {
			return int64(utf8.RuneCountInString(s)), true
		}),
		Doc: "Number of characters (code points) in a string; other types are measured as their string form."})
	Register(&Func{Name: "string_size", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("string_size", vector.Int, KString),
		Eval:   strFunc(vector.Int, func(s string) (int64, bool) { return int64(len(s)), true }),
		Doc:    "Size of a string in bytes (UTF-8)."})
	Register(&Func{Name: "tolower", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("tolower", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return strings.ToLower(s), true }),
		Doc:    "Converts a string to lower case."})
	Register(&Func{Name: "toupper", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("toupper", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return strings.ToUpper(s), true }),
		Doc:    "Converts a string to upper case."})
	Register(&Func{Name: "totitle", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("totitle", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return toTitle(s), true }),
		Doc:    "Upper-cases the first letter of every word, leaving the rest as is."})
	Register(&Func{Name: "reverse", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("reverse", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return reverseRunes(s), true }),
		Doc:    "Reverses the characters of a string."})
	Register(&Func{Name: "isascii", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("isascii", vector.Bool, KString),
		Eval:   strFunc(vector.Bool, func(s string) (bool, bool) { return isASCII(s), true }),
		Doc:    "True when every character of the string is ASCII."})
	Register(&Func{Name: "strcat", Family: famString, MinArgs: 1, MaxArgs: 64,
		Result: Sig("strcat", vector.String, KString),
		Eval:   evalStrcat,
		Doc:    "Concatenates 1 to 64 arguments, converting non-strings to their string form; nulls count as empty."})
	Register(&Func{Name: "strcat_delim", Family: famString, MinArgs: 3, MaxArgs: 65,
		Result: Sig("strcat_delim", vector.String, KString),
		Eval:   evalStrcatDelim,
		Doc:    "strcat_delim(delimiter, a, b, ...): concatenates 2 to 64 arguments separated by delimiter."})
	Register(&Func{Name: "strcmp", Family: famString, MinArgs: 2, MaxArgs: 2,
		Result: Sig("strcmp", vector.Int, KString, KString),
		Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			return Binary(vector.Int, args[0], args[1], n, ToString, ToString, func(a, b string) (int64, bool) {
				return int64(strings.Compare(a, b)), true
			}), nil
		},
		Doc: "Compares two strings: -1, 0 or 1."})
	Register(&Func{Name: "strrep", Family: famString, MinArgs: 2, MaxArgs: 3,
		Result: Sig("strrep", vector.String, KString, KInt, KString),
		Eval:   evalStrrep,
		Doc:    "strrep(value, n[, delimiter]): value repeated n times (at most 1024), joined by delimiter."})
	Register(&Func{Name: "substring", Family: famString, MinArgs: 2, MaxArgs: 3,
		Result: Sig("substring", vector.String, KString, KInt, KInt),
		Eval:   evalSubstring,
		Doc:    "substring(source, start[, length]): characters from the zero-based start; out-of-range bounds are clamped."})
}

func toTitle(s string) string {
	prev := ' '
	return strings.Map(func(r rune) rune {
		sep := !(unicode.IsLetter(prev) || unicode.IsDigit(prev) || prev == '_' || prev == '\'')
		prev = r
		if sep {
			return unicode.ToTitle(r)
		}
		return r
	}, s)
}

func reverseRunes(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func evalStrcat(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	var sb strings.Builder
	return Each(vector.String, args, n, func(i int) (string, bool) {
		sb.Reset()
		for _, a := range args {
			s, _ := ToString(a, i)
			sb.WriteString(s)
		}
		return sb.String(), true
	}), nil
}

func evalStrcatDelim(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	var sb strings.Builder
	return Each(vector.String, args, n, func(i int) (string, bool) {
		d, _ := ToString(args[0], i)
		sb.Reset()
		for j, a := range args[1:] {
			if j > 0 {
				sb.WriteString(d)
			}
			s, _ := ToString(a, i)
			sb.WriteString(s)
		}
		return sb.String(), true
	}), nil
}

// maxRepeat is strrep's documented cap on the multiplier.
const maxRepeat = 1024

// strrepChargeStep is how many bytes of results strrep builds between two
// charges of the query's memory budget.
const strrepChargeStep = 1 << 20

// evalStrrep charges the memory budget for its results before it builds
// them: each level of nesting multiplies the size by up to 1024, so
// strrep(strrep(strrep(strrep("x", 1024), 1024), 1024), 1024) asks for a
// terabyte. The charge is given back on return; the result is then the
// caller's, as any other column.
func evalStrrep(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	var charged, pending int64
	var failed error
	defer func() { ctx.charge(-charged) }()
	out := strRows(vector.String, args, 0, n, func(s string, i int) (string, bool) {
		k, ok1 := ToInt(args[1], i)
		d, ok2 := optStr(args, 2, i, "")
		if !ok1 || !ok2 || failed != nil {
			return "", false
		}
		if k <= 0 {
			return "", true
		}
		k = min(k, maxRepeat)
		if pending += k*int64(len(s)) + (k-1)*int64(len(d)); pending >= strrepChargeStep {
			charged += pending
			failed, pending = ctx.charge(pending), 0
			if failed != nil {
				return "", false
			}
		}
		parts := make([]string, k)
		for j := range parts {
			parts[j] = s
		}
		return strings.Join(parts, d), true
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

func evalSubstring(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.String, args, 0, n, func(s string, i int) (string, bool) {
		start, ok1 := ToInt(args[1], i)
		length, ok2 := optInt(args, 2, i, -1)
		if !ok1 || !ok2 {
			return "", false
		}
		if len(args) > 2 && length < 0 {
			return "", true
		}
		return runeSlice(s, start, length), true
	}), nil
}

// runeSlice returns up to length characters of s from character start
// (length < 0: to the end), clamping start into [0, len].
func runeSlice(s string, start, length int64) string {
	start = max(start, 0)
	b := 0 // byte offset of character start
	for c := int64(0); c < start; c++ {
		if b >= len(s) {
			return ""
		}
		_, w := utf8.DecodeRuneInString(s[b:])
		b += w
	}
	if length < 0 {
		return s[b:]
	}
	e := b
	for c := int64(0); c < length && e < len(s); c++ {
		_, w := utf8.DecodeRuneInString(s[e:])
		e += w
	}
	return s[b:e]
}
