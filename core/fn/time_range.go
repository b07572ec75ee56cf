package fn

import (
	"math"
	"math/bits"
	"time"
)

// A datetime is int64 nanoseconds since the Unix epoch, so it holds the
// times from 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z
// and no others; time.Time.UnixNano of a time outside them is undefined
// (it wraps). Every conversion of a time.Time into a datetime, and every
// sum that makes one, goes through here so that a time outside the range
// is a null (a row's value), a clamp (a query's time range) or an error
// (a literal), never a wrapped value that looks like an answer.

// MinTime and MaxTime are the first and last instant a datetime holds.
var (
	MinTime = time.Unix(0, math.MinInt64).UTC()
	MaxTime = time.Unix(0, math.MaxInt64).UTC()
)

// TimeRangeText names the datetime range for error messages.
const TimeRangeText = "1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z"

// TimeNanos returns t as a datetime's nanoseconds, or false when t is
// outside the range a datetime holds.
func TimeNanos(t time.Time) (int64, bool) {
	if t.Before(MinTime) || t.After(MaxTime) {
		return 0, false
	}
	return t.UnixNano(), true
}

// ClampNanos returns t as a datetime's nanoseconds, the nearest end of the
// range when t is outside it: a query's time range that reaches past the
// year 2262 (or before 1677) asks for everything up to (or from) there.
func ClampNanos(t time.Time) int64 {
	switch {
	case t.Before(MinTime):
		return math.MinInt64
	case t.After(MaxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// AddNanos returns a+b, or false when the sum does not fit (a datetime
// moved past either end of the range, or a timespan that long).
func AddNanos(a, b int64) (int64, bool) {
	s := a + b
	return s, (a^s)&(b^s) >= 0
}

// SubNanos returns a-b, or false when the difference does not fit.
func SubNanos(a, b int64) (int64, bool) {
	d := a - b
	return d, (a^b)&(a^d) >= 0
}

// MulNanos returns a*k, or false when the product does not fit.
func MulNanos(a, k int64) (int64, bool) {
	if a == 0 || k == 0 {
		return 0, true
	}
	hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(k)))
	if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 || k == math.MinInt64 {
		return 0, false
	}
	if (a < 0) != (k < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
