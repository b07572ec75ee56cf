package exec

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// strPred is a string predicate: does text match needle?
type strPred func(text, needle string) bool

// stringOps maps each positive string operator to its predicate. The
// negated forms (!op) invert it; `_cs` forms are case-sensitive.
var stringOps = map[string]strPred{
	"=~":            strings.EqualFold,
	"contains":      func(t, n string) bool { return containsFold(t, n) },
	"contains_cs":   strings.Contains,
	"startswith":    func(t, n string) bool { return hasPrefixFold(t, n) },
	"startswith_cs": strings.HasPrefix,
	"endswith":      func(t, n string) bool { return hasSuffixFold(t, n) },
	"endswith_cs":   strings.HasSuffix,
	"has":           func(t, n string) bool { return hasTerm(t, n, false, termWhole) },
	"has_cs":        func(t, n string) bool { return hasTerm(t, n, true, termWhole) },
	"hasprefix":     func(t, n string) bool { return hasTerm(t, n, false, termPrefix) },
	"hasprefix_cs":  func(t, n string) bool { return hasTerm(t, n, true, termPrefix) },
	"hassuffix":     func(t, n string) bool { return hasTerm(t, n, false, termSuffix) },
	"hassuffix_cs":  func(t, n string) bool { return hasTerm(t, n, true, termSuffix) },
}

// LookupStringOp resolves an operator to its predicate and negation.
func LookupStringOp(op string) (strPred, bool, bool) {
	if op == "!~" {
		return stringOps["=~"], true, true
	}
	neg := strings.HasPrefix(op, "!")
	p, ok := stringOps[strings.TrimPrefix(op, "!")]
	return p, neg, ok
}

// strExpr is the evaluator of the string operator op (known to
// LookupStringOp, or [!]matches regex) over text l and needle r. Its
// error is a constant pattern's that does not compile.
func strExpr(node *plan.Expr, sp srcpos.Span, op string, l, r *Expr) (*Expr, error) {
	var pred strPred
	var ft *foldTerm
	neg := false
	if op == "matches regex" || op == "!matches regex" {
		neg = op[0] == '!'
		if !r.IsConst() {
			return regexPerRow(node, sp, l, r, neg), nil
		}
		re, err := regexp.Compile(ValueString(r.ConstValue()))
		if err != nil {
			return nil, err
		}
		pred = func(t, _ string) bool { return re.MatchString(t) }
	} else {
		p, n, ok := LookupStringOp(op)
		if !ok {
			return nil, fmt.Errorf("unknown operator %s", op)
		}
		pred, neg = p, n
		if r.IsConst() && r.ConstValue() != nil {
			if ft = foldTermPred(op, ValueString(r.ConstValue())); ft != nil {
				pred = func(t, _ string) bool { return ft.Match(t) }
			}
		}
	}
	e := &Expr{Typ: vector.Bool, Col: -1, Span: sp, Node: node}
	memoKey := ""
	if r.IsConst() {
		memoKey = op + "\x00" + ValueString(r.ConstValue())
	}
	e.Eval = binaryEval(l, r, func(x *Ctx, bt *Batch, lv, rv *vector.Vector) (*vector.Vector, error) {
		if r.IsConst() && lv.Codes != nil && !lv.Const && len(lv.Dict) > 0 && x.Preds != nil {
			return x.Preds.Apply(lv, memoKey, bt.N, func(dict []string) []bool {
				needle := ValueString(r.ConstValue())
				res := make([]bool, len(dict))
				if ft != nil {
					ft.fill(dict, nil, neg, res)
					return res
				}
				for i, s := range dict {
					res[i] = pred(s, needle) != neg
				}
				return res
			}, neg), nil
		}
		if ft != nil && lv.Type == vector.String && lv.Strs != nil && !lv.Const {
			return ft.vector(lv, bt, neg), nil
		}
		return stringPredVectors(pred, neg, lv, rv, bt.N), nil
	})
	return e, nil
}

// stringPredVectors applies a string predicate row by row; over a
// dictionary column with a constant needle it runs once per distinct value.
// A null text does not match (so the negated operator matches it).
func stringPredVectors(pred strPred, neg bool, lv, rv *vector.Vector, n int) *vector.Vector {
	out := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	if lv.Type != vector.String {
		lv = castVector(lv, vector.String)
	}
	if rv.Type != vector.String {
		rv = castVector(rv, vector.String)
	}
	if rv.Const && rv.IsNull(0) {
		return vector.NewNulls(vector.Bool, n)
	}
	if rv.Const && lv.Codes != nil && !lv.Const {
		needle := rv.Str(0)
		res := make([]bool, len(lv.Dict))
		for i, s := range lv.Dict {
			res[i] = pred(s, needle) != neg
		}
		for i, code := range lv.Codes[:n] {
			out.Bools[i] = res[code]
		}
	} else if rv.Const && !lv.Const && lv.Codes == nil {
		needle := rv.Str(0)
		for i, s := range lv.Strs[:n] {
			out.Bools[i] = pred(s, needle) != neg
		}
	} else {
		for i := 0; i < n; i++ {
			out.Bools[i] = pred(lv.Str(i), rv.Str(i)) != neg
		}
	}
	if lv.HasNulls() {
		for i := 0; i < n; i++ {
			if lv.IsNull(i) {
				out.Bools[i] = neg
			}
		}
	}
	return out
}

// containsFold is a case-insensitive substring test without allocating
// when both strings are ASCII.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	if isASCII(s) && isASCII(sub) {
		n := len(sub)
		first := lowerASCII(sub[0])
		for i := 0; i+n <= len(s); i++ {
			if lowerASCII(s[i]) == first && equalFoldASCII(s[i:i+n], sub) {
				return true
			}
		}
		return false
	}
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) || (!isASCII(s) && strings.HasPrefix(strings.ToLower(s), strings.ToLower(p)))
}

func hasSuffixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[len(s)-len(p):], p) || (!isASCII(s) && strings.HasSuffix(strings.ToLower(s), strings.ToLower(p)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

// term match modes for has, hasprefix and hassuffix.
const (
	termWhole = iota
	termPrefix
	termSuffix
)

// isTermRune reports whether r belongs to a term: Axiom defines a term as
// a maximal run of Unicode letters and digits, so `_`, `-` and `.` are
// boundaries (apl.md §1.5).
func isTermRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// hasTerm reports whether needle matches a term of text. A needle that
// itself spans several terms (contains boundaries) must match at term
// boundaries on both ends.
func hasTerm(text, needle string, cs bool, mode int) bool {
	if needle == "" {
		return mode != termWhole || text == ""
	}
	if !cs {
		text, needle = strings.ToLower(text), strings.ToLower(needle)
	}
	for off := 0; off <= len(text)-len(needle); {
		i := strings.Index(text[off:], needle)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(needle)
		startOK := start == 0 || !isTermRune(lastRune(text[:start]))
		endOK := end == len(text) || !isTermRune(firstRune(text[end:]))
		switch mode {
		case termWhole:
			if startOK && endOK {
				return true
			}
		case termPrefix:
			if startOK {
				return true
			}
		case termSuffix:
			if endOK {
				return true
			}
		}
		_, w := utf8.DecodeRuneInString(text[start:])
		off = start + w
	}
	return false
}

func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

// regexPerRow is `matches regex` with a pattern that varies by row: each
// distinct pattern is compiled once per batch; one that does not compile
// fails the query at the pattern's position, as a constant one does when
// it is planned (matching nothing would drop rows without a word).
func regexPerRow(node *plan.Expr, sp srcpos.Span, l, r *Expr, neg bool) *Expr {
	e := &Expr{Typ: vector.Bool, Col: -1, Span: sp, Node: node}
	e.Eval = binaryEval(l, r, func(x *Ctx, bt *Batch, lv, rv *vector.Vector) (*vector.Vector, error) {
		cache := map[string]*regexp.Regexp{}
		var bad error
		pred := func(t, pat string) bool {
			re, ok := cache[pat]
			if !ok {
				var err error
				if re, err = regexp.Compile(pat); err != nil && bad == nil {
					at := r.Span
					if at.Start.Line == 0 {
						at = sp
					}
					bad = SemErrAt(at, "invalid regular expression %q: %v", pat, err)
				}
				cache[pat] = re
			}
			return re != nil && re.MatchString(t)
		}
		out := stringPredVectors(pred, neg, lv, rv, bt.N)
		if bad != nil {
			return nil, bad
		}
		return out, nil
	})
	return e
}

// DictMemo caches a string predicate's answer per dictionary entry. It
// belongs to the engine: the morsels of a part share their dictionary, and
// a cached column keeps its dictionary across queries, so a predicate runs
// once per distinct value per part for as long as the column stays cached.
// It is cleared when it holds too many dictionaries, which also lets go of
// dictionaries the column cache has evicted.
type DictMemo struct {
	mu    sync.Mutex
	Cache map[memoKey][]bool
	bytes int
	// Transient, for a query over streams, computes without keeping: a
	// stream chunk's dictionary is gone after the chunk (see interner).
	Transient bool
}

type memoKey struct {
	dict *string
	pred string
}

// Bounds on what a dictMemo keeps: dictionaries and answer bytes.
const (
	maxMemoDicts = 1 << 13
	maxMemoBytes = 64 << 20
)

// Apply maps each row's code to the memoised answer (null text → neg).
func (m *DictMemo) Apply(v *vector.Vector, pred string, n int, compute func([]string) []bool, neg bool) *vector.Vector {
	key := memoKey{&v.Dict[0], pred}
	m.mu.Lock()
	res, ok := m.Cache[key]
	m.mu.Unlock()
	if !ok && m.Transient {
		res = compute(v.Dict)
	} else if !ok {
		res = compute(v.Dict)
		m.mu.Lock()
		if m.Cache == nil || len(m.Cache) >= maxMemoDicts || m.bytes+len(res) > maxMemoBytes {
			m.Cache, m.bytes = map[memoKey][]bool{}, 0
		}
		m.Cache[key] = res
		m.bytes += len(res)
		m.mu.Unlock()
	}
	out := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	for i, code := range v.Codes[:n] {
		out.Bools[i] = res[code]
	}
	if v.Valid != nil {
		for i := 0; i < n; i++ {
			if !v.Valid.Get(i) {
				out.Bools[i] = neg
			}
		}
	}
	return out
}
