package exec

import (
	"cmp"
	"math"
	"strings"
	"time"

	"github.com/aplite/aplite/core/agg"
)

// The sort order of dynamic values. compareAny answers comparisons
// (`where x > 5`), where a word against a number is neither less nor
// greater; a sort cannot use that, because "n/a" equal to every number
// while 3 < 7 is no order at all: the answer then depended on the order
// rows arrived in (four workers gave 15 different `top 10 by x` in 20
// runs over a field mixing numbers and words). orderAny is a total order:
//
//  1. values that read as a number, as the aggregations read them
//     (longs, reals, bools, timespans, numeric strings), by that number,
//     NaN first (cmp.Compare's order);
//  2. datetimes, by time;
//  3. other strings, byte-wise;
//  4. arrays and objects, by their JSON text.
//
// Values of one class compare as the column of that type does, so a
// dynamic column holding only numbers sorts as a real column would.

// Sort classes, in order.
const (
	sortNumber = iota
	sortTime
	sortString
	sortOther
)

// SortClass returns v's class and its number (numbers) or text
// (strings); the text of a composite is left to orderAny, which alone
// needs it.
func SortClass(v any) (class int, f float64, s string) {
	switch x := v.(type) {
	case time.Time:
		return sortTime, 0, ""
	case string:
		if f, ok := agg.DynReal(x); ok {
			return sortNumber, f, ""
		}
		return sortString, 0, x
	}
	if f, ok := agg.DynReal(v); ok {
		return sortNumber, f, ""
	}
	return sortOther, 0, ""
}

// orderAny orders two non-null values for sorting (the order above).
func orderAny(a, b any) int {
	ca, fa, sa := SortClass(a)
	cb, fb, sb := SortClass(b)
	switch {
	case ca != cb:
		return cmp.Compare(ca, cb)
	case ca == sortNumber:
		return orderNumbers(a, b, fa, fb)
	case ca == sortTime:
		return a.(time.Time).Compare(b.(time.Time))
	case ca == sortOther:
		return strings.Compare(ValueString(a), ValueString(b))
	}
	return strings.Compare(sa, sb)
}

// orderNumbers orders two values of the number class. Longs beyond 2^53
// share a float64, so two longs compare as longs and a long against a
// real exactly; any other pair (bools, timespans, numeric strings)
// compares by its float64, as the aggregations read it.
func orderNumbers(a, b any, fa, fb float64) int {
	ia, aInt := a.(int64)
	ib, bInt := b.(int64)
	switch {
	case aInt && bInt:
		return cmp.Compare(ia, ib)
	case aInt && !math.IsNaN(fb):
		if _, real := b.(float64); real {
			return compareLongReal(ia, fb)
		}
	case bInt && !math.IsNaN(fa):
		if _, real := a.(float64); real {
			return -compareLongReal(ib, fa)
		}
	}
	return cmp.Compare(fa, fb)
}

// compareLongReal compares a long with a real that is not NaN exactly.
func compareLongReal(i int64, f float64) int {
	switch {
	case f >= 1<<63:
		return -1
	case f < -(1 << 63):
		return 1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	return cmp.Compare(t, f)
}

// dynAscKey maps a non-null dynamic value to a uint64 that never
// decreases along orderAny's order (equal values map to equal keys): the
// class in the top two bits, then the leading bits of the number (as
// floatRank orders it), the time, or the string's first bytes. It is not
// one-to-one, so a top compares these keys only to drop rows that
// cannot be among its answer (a row whose key is below the N-th best's
// is below it), never to order rows.
func dynAscKey(x any) uint64 {
	c, f, s := SortClass(x)
	var w uint64
	switch c {
	case sortNumber:
		w = floatRank(f, true)
	case sortTime:
		w = intRank(clampedNanos(x.(time.Time)), true)
	case sortString:
		for i := range 8 {
			w <<= 8
			if i < len(s) {
				w |= uint64(s[i])
			}
		}
	}
	return uint64(c)<<62 | w>>2
}

// Bounds of the times whose nanoseconds an int64 holds.
var (
	minNanoTime = time.Unix(0, math.MinInt64)
	maxNanoTime = time.Unix(0, math.MaxInt64)
)

// clampedNanos is t in nanoseconds since the epoch, clamped to int64's
// range, so the order of times is kept (ties at the ends aside).
func clampedNanos(t time.Time) int64 {
	switch {
	case t.Before(minNanoTime):
		return math.MinInt64
	case t.After(maxNanoTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}
