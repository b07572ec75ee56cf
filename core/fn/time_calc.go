package fn

import (
	"math"
	"strings"
	"time"

	"github.com/aplite/aplite/vector"
)

// Clock and calendar arithmetic. now() and ago() read Context.Now, fixed
// at query start, so every row and every call in a query agree.

func init() {
	Register(&Func{Name: "now", Family: famTime, MinArgs: 0, MaxArgs: 1, Clock: true,
		Result: Sig("now", vector.DateTime, KSpan),
		Eval: func(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			if len(args) == 0 {
				return vector.NewConst(vector.DateTime, ctx.Now.UnixNano(), n.N), nil
			}
			return Unary(vector.DateTime, args[0], n, ToDuration, func(d int64) (int64, bool) {
				return AddNanos(ctx.Now.UnixNano(), d)
			}), nil
		},
		Doc: "The query's start time in UTC, plus an optional timespan offset."})
	Register(&Func{Name: "ago", Family: famTime, MinArgs: 1, MaxArgs: 1, Clock: true,
		Result: Sig("ago", vector.DateTime, KSpan),
		Eval: func(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			return Unary(vector.DateTime, args[0], n, ToDuration, func(d int64) (int64, bool) {
				return SubNanos(ctx.Now.UnixNano(), d)
			}), nil
		},
		Doc: "The query's start time minus a timespan: ago(1h) is now() - 1h."})
	Register(&Func{Name: "datetime_add", Family: famTime, MinArgs: 3, MaxArgs: 3,
		Result: Sig("datetime_add", vector.DateTime, KString, KInt, KTime),
		Eval:   evalDatetimeAdd,
		Doc:    "datetime_add(period, amount, datetime): adds amount periods (year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, nanosecond)."})
	Register(&Func{Name: "datetime_diff", Family: famTime, MinArgs: 3, MaxArgs: 3,
		Result: Sig("datetime_diff", vector.Int, KString, KTime, KTime),
		Eval:   evalDatetimeDiff,
		Doc:    "datetime_diff(period, a, b): number of period boundaries between b and a: calendar years, quarters and months, weeks starting on Sunday (Axiom's page is silent on weeks; follows Kusto), days and smaller units."})
	units := []struct {
		name  string
		scale float64
	}{{"seconds", 1e9}, {"milliseconds", 1e6}, {"microseconds", 1e3}, {"nanoseconds", 1}}
	for _, u := range units {
		scale := u.scale
		name := "unixtime_" + u.name + "_todatetime"
		Register(&Func{Name: name, Family: famTime, MinArgs: 1, MaxArgs: 1,
			Result: Sig(name, vector.DateTime, KNum),
			Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
				return unixToTime(args[0], n, scale), nil
			},
			Doc: "Datetime from a Unix timestamp in " + u.name + " (long or real)."})
	}
}

// unixToTime scales epoch numbers to ns; integer input stays exact.
func unixToTime(a *vector.Vector, n Rows, scale float64) *vector.Vector {
	if a.Type == vector.Int {
		k := int64(scale)
		return Unary(vector.DateTime, a, n, ToInt, func(x int64) (int64, bool) {
			r := x * k
			return r, k == 1 || r/k == x
		})
	}
	return Unary(vector.DateTime, a, n, ToFloat, func(x float64) (int64, bool) {
		return FloatToInt(math.Round(x * scale))
	})
}

// period is a datetime_add / datetime_diff unit: calendar months, or a
// fixed length.
type period struct {
	months int
	fixed  int64
}

var periods = map[string]period{
	"year": {months: 12}, "quarter": {months: 3}, "month": {months: 1},
	"week": {fixed: 7 * nsPerDay}, "day": {fixed: nsPerDay},
	"hour": {fixed: int64(time.Hour)}, "minute": {fixed: int64(time.Minute)},
	"second": {fixed: int64(time.Second)}, "millisecond": {fixed: int64(time.Millisecond)},
	"microsecond": {fixed: int64(time.Microsecond)}, "nanosecond": {fixed: 1},
}

func lookupPeriod(s string) (period, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	p, ok := periods[s]
	if !ok {
		p, ok = periods[strings.TrimSuffix(s, "s")]
	}
	return p, ok
}

func evalDatetimeAdd(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkConstName("datetime_add", args[0], func(s string) bool { _, ok := lookupPeriod(s); return ok }); err != nil {
		return nil, err
	}
	return Each(vector.DateTime, args, n, func(i int) (int64, bool) {
		ps, ok1 := ToString(args[0], i)
		k, ok2 := ToInt(args[1], i)
		ns, ok3 := ToTime(args[2], i)
		p, ok4 := lookupPeriod(ps)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return 0, false
		}
		if p.months == 0 {
			d, ok := MulNanos(k, p.fixed)
			if !ok {
				return 0, false
			}
			return AddNanos(ns, d) // past 2262 or before 1677: null
		}
		if k > maxPeriods || k < -maxPeriods {
			return 0, false
		}
		return TimeNanos(addMonths(utc(ns), int(k)*p.months))
	}), nil
}

// addMonths moves t by k calendar months, clamping the day to the end of
// a shorter month (Jan 31 + 1 month = Feb 28 or 29) instead of Go's
// overflow into the next month.
func addMonths(t time.Time, k int) time.Time {
	first := time.Date(t.Year(), t.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	d := min(t.Day(), last)
	h, m, s := t.Clock()
	return time.Date(first.Year(), first.Month(), d, h, m, s, t.Nanosecond(), time.UTC)
}

func evalDatetimeDiff(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkConstName("datetime_diff", args[0], func(s string) bool { _, ok := lookupPeriod(s); return ok }); err != nil {
		return nil, err
	}
	return Each(vector.Int, args, n, func(i int) (int64, bool) {
		ps, ok1 := ToString(args[0], i)
		a, ok2 := ToTime(args[1], i)
		b, ok3 := ToTime(args[2], i)
		p, ok4 := lookupPeriod(ps)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return 0, false
		}
		if p.months == 0 {
			if p.fixed == 7*nsPerDay {
				// Weeks count Sunday-started week boundaries, as Kusto
				// does and as 'day' counts midnights (Axiom's page gives no
				// week example): Sat 23:59 to the next Sun 00:00 is 1.
				// 1970-01-01 was a Thursday, so day d is in week (d+4)/7.
				return floorDiv(floorDiv(a, nsPerDay)+4, 7) - floorDiv(floorDiv(b, nsPerDay)+4, 7), true
			}
			// Days and smaller units count the boundaries crossed, as KQL
			// does: datetime_diff('day', Oct 30 00:00, Oct 29 23:59) is 1.
			return SubNanos(floorDiv(a, p.fixed), floorDiv(b, p.fixed))
		}
		return calendarDiff(utc(a), utc(b), p.months), true
	}), nil
}

// calendarDiff counts calendar boundaries (years, quarters or months, by
// the period's length in months) between b and a, as KQL does:
// datetime_diff("year", 2017-01-01, 2016-12-31) is 1.
func calendarDiff(a, b time.Time, months int) int64 {
	ia := a.Year()*12 + int(a.Month()) - 1
	ib := b.Year()*12 + int(b.Month()) - 1
	return int64(floorDiv(int64(ia), int64(months)) - floorDiv(int64(ib), int64(months)))
}
