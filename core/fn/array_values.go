package fn

// Reading, comparing and converting the elements of dynamic arrays and
// bags. Dynamic values arrive as nil, bool, int64, float64, string,
// time.Time, time.Duration, []any or map[string]any (see vector.Vector);
// the array, bag, series and GenAI functions share these readers so they
// agree on what counts as a number, a string or an equal element.

import (
	"math"
	"strings"
	"time"

	"github.com/aplite/aplite/vector"
)

// arrAt returns row i of v as an array, or false when the row is null or
// holds something other than an array.
func arrAt(v *vector.Vector, i int) ([]any, bool) {
	if v.Type != vector.Dynamic || v.IsNull(i) {
		return nil, false
	}
	a, ok := v.Dyn(i).([]any)
	return a, ok
}

// bagAt returns row i of v as a property bag, or false when the row is
// null or holds something other than a bag.
func bagAt(v *vector.Vector, i int) (map[string]any, bool) {
	if v.Type != vector.Dynamic || v.IsNull(i) {
		return nil, false
	}
	m, ok := v.Dyn(i).(map[string]any)
	return m, ok
}

// arrNum reads an array element as a number. JSON numbers count, and so
// do timespans (as nanoseconds), because make_list(duration) builds
// series of them that series_greater and friends compare; strings and
// bools inside arrays are not numbers (array_sum ignores them, series_*
// turn them into null).
func arrNum(x any) (f float64, ok bool) {
	switch t := x.(type) {
	case float64:
		return t, true
	case int64:
		return float64(t), true
	case int:
		return float64(t), true
	case time.Duration:
		return float64(t), true
	}
	return 0, false
}

// arrInt reports whether x is an integer element (a timespan counts, in
// nanoseconds) and returns it.
func arrInt(x any) (int64, bool) {
	switch t := x.(type) {
	case int64:
		return t, true
	case int:
		return int64(t), true
	case time.Duration:
		return int64(t), true
	}
	return 0, false
}

// arrRank orders the kinds of values when an array mixes them: booleans,
// then numbers, strings, datetimes, timespans and finally nested arrays
// and bags, which sort by their JSON text.
func arrRank(x any) int {
	switch x.(type) {
	case bool:
		return 0
	case int64, int, float64:
		return 1
	case string:
		return 2
	case time.Time:
		return 3
	case time.Duration:
		return 4
	}
	return 5
}

// arrCompare orders two non-null elements: by kind first (arrRank), then
// by value. NaN sorts after every other number so sorted output is stable.
func arrCompare(a, b any) int {
	ra, rb := arrRank(a), arrRank(b)
	if ra != rb {
		return arrCmp(ra, rb)
	}
	switch ra {
	case 0:
		return arrCmp(arrB2i(a.(bool)), arrB2i(b.(bool)))
	case 1:
		return arrCompareNum(a, b)
	case 2:
		return strings.Compare(a.(string), b.(string))
	case 3:
		return a.(time.Time).Compare(b.(time.Time))
	case 4:
		return arrCmp(int64(a.(time.Duration)), int64(b.(time.Duration)))
	}
	return strings.Compare(string(AppendJSON(nil, a)), string(AppendJSON(nil, b)))
}

func arrCompareNum(a, b any) int {
	ia, aInt := arrInt(a)
	ib, bInt := arrInt(b)
	if aInt && bInt {
		return arrCmp(ia, ib)
	}
	fa, _ := arrNum(a)
	fb, _ := arrNum(b)
	switch na, nb := math.IsNaN(fa), math.IsNaN(fb); {
	case na && nb:
		return 0
	case na:
		return 1
	case nb:
		return -1
	}
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

// arrEqual reports whether two elements are the same value: numbers by
// value (1 equals 1.0), everything else by kind and value.
func arrEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if arrRank(a) != arrRank(b) {
		return false
	}
	return arrCompare(a, b) == 0
}

func arrCmp[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func arrB2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// arrString renders an element the way strcat_array and the pair
// functions join it: null as "", strings unquoted, everything else in its
// APL string form.
func arrString(x any) string {
	s, _ := DynString(x)
	return s
}

// arrIndex resolves a possibly negative index against length n; negative
// indexes count from the end. The result may still be out of range.
func arrIndex(i int64, n int) int64 {
	if i < 0 {
		return i + int64(n)
	}
	return i
}

// ClampIndex resolves a possibly negative index (counting from the end)
// and clamps it to [0, n]: the bounds of array_slice and of x[lo:hi].
func ClampIndex(i int64, n int) int {
	i = arrIndex(i, n)
	if i < 0 {
		return 0
	}
	if i > int64(n) {
		return n
	}
	return int(i)
}
