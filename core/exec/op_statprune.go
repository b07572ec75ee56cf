package exec

import (
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Statistics pruning: a where conjunct made of simple comparisons of a
// column with constants (`status == 500`, `x > 5`, `s == "abc"`,
// `m in ("GET", "PUT")`, and `and`/`or` of those) is tested against each
// part's column statistics (min/max, or the dictionary of a string
// column) before the part is read: a block, or a Parquet row group that a
// stream offers with its statistics, that cannot hold a matching row is
// skipped unread. Anything the test cannot decide keeps the part. The test
// is read from the predicate's plan node (push.go: nodeMay).

// mayMatch tells whether a part may hold a row a predicate accepts.
type mayMatch func(p store.Part) bool

// cmpMayValue tests `name op want` against a part's column statistics.
func cmpMayValue(name string, colType vector.Type, op string, want any) mayMatch {
	if op != "==" && !isOrdered(want) {
		return nil // string order is left to the row filter
	}
	return columnMay(name, colType, func(m store.ColumnMeta) bool {
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
		lo, ok1 := CompareAny(want, m.Min)
		hi, ok2 := CompareAny(want, m.Max)
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
	c, ok := CompareAny(d, want)
	return !ok || cmpResult(op, c)
}
