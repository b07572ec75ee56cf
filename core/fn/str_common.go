package fn

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/aplite/aplite/vector"
)

// EvalFunc is the signature of Func.Eval.
type EvalFunc = func(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error)

// strRows evaluates f for the string form of args[si] on every row; f reads
// any other argument itself at row i. When every other argument is Const
// (the common case: a column and literals), f runs once per distinct
// value of a dictionary-encoded column, reading the others at row 0.
func strRows[R any](t vector.Type, args []*vector.Vector, si int, n Rows, f func(s string, i int) (R, bool)) *vector.Vector {
	othersConst := true
	for j, a := range args {
		if j != si && !a.Const {
			othersConst = false
		}
	}
	if othersConst {
		return MapStrings(t, args[si], n, func(s string) (R, bool) { return f(s, 0) })
	}
	return Each(t, args, n, func(i int) (R, bool) {
		s, ok := ToString(args[si], i)
		if !ok {
			var zero R
			return zero, false
		}
		return f(s, i)
	})
}

// strFunc adapts a function of one string to Func.Eval.
func strFunc[R any](t vector.Type, f func(string) (R, bool)) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return MapStrings(t, args[0], n, f), nil
	}
}

// optInt reads optional integer argument j at row i, or def when the call
// has fewer arguments. ok is false when the argument is present but null.
func optInt(args []*vector.Vector, j, i int, def int64) (int64, bool) {
	if j >= len(args) {
		return def, true
	}
	return ToInt(args[j], i)
}

// optStr is optInt for a string argument.
func optStr(args []*vector.Vector, j, i int, def string) (string, bool) {
	if j >= len(args) {
		return def, true
	}
	return ToString(args[j], i)
}

// regexCache holds compiled patterns. Patterns are almost always literals,
// so a query compiles each once; the cache is bounded by dropping it
// whole when it grows past regexCacheMax, which only a query computing
// patterns per row can reach.
var regexCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const regexCacheMax = 1024

// compileRegex compiles an RE2 pattern (APL's regex dialect), caching it.
// A pattern that does not compile yields nil, which callers turn into a
// null result.
func compileRegex(p string) *regexp.Regexp {
	regexCache.Lock()
	defer regexCache.Unlock()
	if re, ok := regexCache.m[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	if regexCache.m == nil || len(regexCache.m) >= regexCacheMax {
		regexCache.m = map[string]*regexp.Regexp{}
	}
	regexCache.m[p] = re
	return re
}

// regexArg reads a pattern argument at row i and compiles it.
func regexArg(args []*vector.Vector, j, i int) (*regexp.Regexp, bool) {
	p, ok := ToString(args[j], i)
	if !ok {
		return nil, false
	}
	re := compileRegex(p)
	return re, re != nil
}

// regexReader returns a reader of pattern argument j that compiles a
// constant pattern once up front instead of looking it up per row.
func regexReader(args []*vector.Vector, j int) func(i int) (*regexp.Regexp, bool) {
	if args[j].Const {
		re, ok := regexArg(args, j, 0)
		return func(int) (*regexp.Regexp, bool) { return re, ok }
	}
	return func(i int) (*regexp.Regexp, bool) { return regexArg(args, j, i) }
}

// patternArgs names, per function, the argument that is an RE2 pattern.
var patternArgs = map[string]int{
	"extract": 0, "extract_all": 0, "replace": 0, "replace_regex": 0,
	"countof_regex": 0, "indexof_regex": 1,
	"trim_regex": 0, "trim_start_regex": 0, "trim_end_regex": 0,
}

// CheckPattern reports whether argument j of the function called name is
// a regular expression and, when that argument's constant value text
// does not compile, the error to show the user at the argument. The
// planner calls it so that a bad pattern is a 400 with its position
// before any row is read.
func CheckPattern(name string, j int, text string) error {
	if k, ok := patternArgs[name]; !ok || k != j {
		return nil
	}
	if _, err := regexp.Compile(text); err != nil {
		return &PatternError{Func: name, Arg: j, Err: err}
	}
	return nil
}

// checkRegexArg reports a malformed pattern argument j as a query error
// instead of silently returning nulls: a constant one, or the first of a
// column's (a pattern computed per row) that does not compile.
func checkRegexArg(name string, args []*vector.Vector, j int, n Rows) error {
	if j >= len(args) {
		return nil
	}
	a := args[j]
	if a.Const {
		if a.IsNull(0) {
			return nil
		}
		p, _ := ToString(a, 0)
		if _, err := regexp.Compile(p); err != nil {
			return &PatternError{Func: name, Arg: j, Err: err}
		}
		return nil
	}
	seen := map[string]bool{}
	for i := range n.Live() {
		p, ok := ToString(a, i)
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		if compileRegex(p) == nil {
			_, err := regexp.Compile(p)
			return &PatternError{Func: name, Arg: j, Err: fmt.Errorf("%q: %w", p, err)}
		}
	}
	return nil
}

// PatternError is a regular expression argument that does not compile:
// the query's mistake, which the evaluator reports at argument Arg of
// the call (a 400, not a 500).
type PatternError struct {
	Func string // the function called
	Arg  int    // the pattern's argument, from 0
	Err  error  // regexp's reason
}

// Error names the function and says why the pattern does not compile.
func (e *PatternError) Error() string {
	return e.Func + ": invalid regular expression: " + e.Err.Error()
}

// Unwrap returns regexp's error.
func (e *PatternError) Unwrap() error { return e.Err }

// strArr converts a string slice to a dynamic array.
func strArr(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
