package testutil

import (
	"math"
	"reflect"
	"time"
)

// SameValue is deep equality of decoded dynamic values (nested []any and
// map[string]any, scalars, time.Time) as a round trip must keep them:
// NaN equals NaN, -0 is not +0, an int64 is never a float64, and times
// are equal when they are the same instant.
func SameValue(a, b any) bool { return equal(a, b, -1) }

// CloseValue is SameValue for computed answers: reals may differ by rel
// of the larger magnitude (at least 1), since a merge or a kernel adds
// in another order, and -0 equals +0. An int64 still never equals a
// float64, so a test catches a long answered as a real.
func CloseValue(a, b any, rel float64) bool { return equal(a, b, rel) }

// equal compares reals bit for bit when rel < 0.
func equal(a, b any, rel float64) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i], rel) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, has := y[k]
			if !has || !equal(v, w, rel) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		switch {
		case !ok:
			return false
		case math.IsNaN(x) || math.IsNaN(y):
			return math.IsNaN(x) && math.IsNaN(y)
		case rel < 0:
			return math.Float64bits(x) == math.Float64bits(y)
		}
		return x == y || math.Abs(x-y) <= rel*max(1, math.Abs(x), math.Abs(y))
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return reflect.DeepEqual(a, b)
}
