package core

import (
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// Statistics pruning: a where conjunct made of simple comparisons of a
// column with constants (`status == 500`, `x > 5`, `s == "abc"`,
// `m in ("GET", "PUT")`, and `and`/`or` of those) is tested against each
// part's column statistics (min/max, or the dictionary of a string
// column) before the part is read: a block, or a Parquet row group that a
// stream offers with its statistics, that cannot hold a matching row is
// skipped unread. Anything the test cannot decide keeps the part.

// mayMatch tells whether a part may hold a row a predicate accepts.
type mayMatch func(p store.Part) bool

// statPrune returns a test that skips a part when the conjunct e cannot
// match given the part's statistics, or nil when it cannot tell.
func statPrune(c *compiler, s schema, e parser.Expr) func(store.Part) bool {
	m := statMay(c, s, e)
	if m == nil {
		return nil
	}
	return func(p store.Part) bool { return !m(p) }
}

// statMay builds the test of e, or nil when e is not a simple predicate.
func statMay(c *compiler, s schema, e parser.Expr) mayMatch {
	switch e := e.(type) {
	case *parser.BinaryExpr:
		switch e.Op {
		case "or", "and":
			l, r := statMay(c, s, e.L), statMay(c, s, e.R)
			if e.Op == "or" {
				if l == nil || r == nil {
					return nil
				}
				return func(p store.Part) bool { return l(p) || r(p) }
			}
			switch {
			case l == nil:
				return r
			case r == nil:
				return l
			}
			return func(p store.Part) bool { return l(p) && r(p) }
		case "==", "<", "<=", ">", ">=":
			return cmpMay(c, s, e)
		}
	case *parser.InExpr:
		return inMay(c, s, e)
	}
	return nil
}

// cmpMay tests `col op const` (either way round).
func cmpMay(c *compiler, s schema, e *parser.BinaryExpr) mayMatch {
	op, l, r := e.Op, e.L, e.R
	if _, ok := dottedName(l); !ok {
		l, r, op = r, l, flipCmp(op)
	}
	name, ok := dottedName(l)
	if !ok || s.index(name) < 0 {
		return nil
	}
	want, ok := constOf(c, r)
	if !ok {
		return nil
	}
	if op != "==" && !isOrdered(want) {
		return nil // string order is left to the row filter
	}
	return columnMay(name, s[s.index(name)].Type, func(m store.ColumnMeta) bool {
		if m.Dict != nil {
			if _, isStr := want.(string); !isStr {
				return true
			}
			for _, d := range m.Dict {
				if cmpHolds(op, d, want) {
					return true
				}
			}
			return false
		}
		if m.Min == nil || m.Max == nil {
			return true
		}
		lo, ok1 := compareAny(want, m.Min)
		hi, ok2 := compareAny(want, m.Max)
		if !ok1 || !ok2 {
			return true
		}
		switch op {
		case "==":
			return lo >= 0 && hi <= 0
		case "<":
			return lo > 0 // some value below want: min < want
		case "<=":
			return lo >= 0
		case ">":
			return hi < 0
		}
		return hi <= 0 // ">="
	})
}

// inMay tests `col in (const, ...)`: a part may match when it may hold
// one of the values.
func inMay(c *compiler, s schema, e *parser.InExpr) mayMatch {
	if e.Op != "in" {
		return nil
	}
	name, ok := dottedName(e.X)
	if !ok || s.index(name) < 0 || len(e.List) == 0 {
		return nil
	}
	var eqs []mayMatch
	for _, item := range e.List {
		m := cmpMay(c, s, &parser.BinaryExpr{Op: "==", L: e.X, R: item})
		if m == nil {
			return nil
		}
		eqs = append(eqs, m)
	}
	return func(p store.Part) bool {
		for _, m := range eqs {
			if m(p) {
				return true
			}
		}
		return false
	}
}

// columnMay applies test to every stored column of the field in a part:
// the part may match when any column may. A part without the field holds
// only nulls there, which no comparison accepts; a column of another type
// than the schema's, or dynamic, is converted when read, so it may match.
func columnMay(name string, colType vector.Type, test func(store.ColumnMeta) bool) mayMatch {
	return func(p store.Part) bool {
		for _, m := range p.Columns() {
			if m.Key.Name != name {
				continue
			}
			if m.Key.Type != colType || m.Key.Type == vector.Dynamic || test(m) {
				return true
			}
		}
		return false
	}
}

// constOf compiles e and returns its value when it is a non-null constant.
func constOf(c *compiler, e parser.Expr) (any, bool) {
	k, err := c.compile(e)
	if err != nil || !k.isConst() || k.cnst.IsNull(0) {
		return nil, false
	}
	return k.constValue(), true
}

// isOrdered reports whether min/max order means what < means for v.
func isOrdered(v any) bool {
	switch v.(type) {
	case int64, float64, time.Time, time.Duration:
		return true
	}
	return false
}

// cmpHolds evaluates `d op want` for a dictionary entry; a pair that
// does not compare may hold (the part is kept).
func cmpHolds(op string, d string, want any) bool {
	c, ok := compareAny(d, want)
	return !ok || cmpResult(op, c)
}
