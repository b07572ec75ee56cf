package fn

import (
	"strings"
	"time"

	"github.com/aplite/aplite/vector"
)

// Datetime parts: integers read off a datetime in UTC. dayofweek is an
// integer 0 (Sunday) to 6 in Axiom, where KQL returns a timespan.

const famTime = "datetime"

const nsPerDay = int64(24 * time.Hour)

func init() {
	parts := []struct {
		name string
		f    func(ns int64) int64
		doc  string
	}{
		{"dayofmonth", func(ns int64) int64 { return int64(utc(ns).Day()) }, "Day of the month, 1 to 31."},
		{"dayofweek", dayOfWeek, "Day of the week as an integer: 0 for Sunday to 6 for Saturday."},
		{"dayofyear", func(ns int64) int64 { return int64(utc(ns).YearDay()) }, "Day of the year, 1 to 366."},
		{"getmonth", func(ns int64) int64 { return int64(utc(ns).Month()) }, "Month, 1 to 12."},
		{"monthofyear", func(ns int64) int64 { return int64(utc(ns).Month()) }, "Month, 1 to 12."},
		{"getyear", func(ns int64) int64 { return int64(utc(ns).Year()) }, "Year."},
		{"hourofday", func(ns int64) int64 { return floorMod(ns, nsPerDay) / int64(time.Hour) }, "Hour of the day, 0 to 23."},
		{"week_of_year", isoWeek, "ISO 8601 week number, 1 to 53."},
	}
	for _, p := range parts {
		f := p.f
		Register(&Func{Name: p.name, Family: famTime, MinArgs: 1, MaxArgs: 1,
			Result: Sig(p.name, vector.Int, KTime),
			Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
				return timeToInt(args[0], n, f), nil
			},
			Doc: p.doc})
	}
	Register(&Func{Name: "datetime_part", Family: famTime, MinArgs: 2, MaxArgs: 2,
		Result: Sig("datetime_part", vector.Int, KString, KTime),
		Eval:   evalDatetimePart,
		Doc:    "datetime_part(part, datetime): year, quarter, month, week_of_year, day, dayofyear, hour, minute, second, millisecond, microsecond or nanosecond."})
}

func utc(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// floorMod is the non-negative remainder, so times before 1970 land in
// the right day.
func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// floorDiv rounds the quotient toward minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// dayOfWeek uses the epoch day: 1970-01-01 was a Thursday (4).
func dayOfWeek(ns int64) int64 { return floorMod(floorDiv(ns, nsPerDay)+4, 7) }

func isoWeek(ns int64) int64 {
	_, w := utc(ns).ISOWeek()
	return int64(w)
}

// timeToInt maps a datetime column to longs with a tight loop for plain
// datetime input.
func timeToInt(a *vector.Vector, n Rows, f func(int64) int64) *vector.Vector {
	if a.Type != vector.DateTime || a.Const {
		return Unary(vector.Int, a, n, ToTime, func(ns int64) (int64, bool) { return f(ns), true })
	}
	out := make([]int64, n.N)
	in := a.Ints[:n.N]
	for i := range n.Live() {
		out[i] = f(in[i])
	}
	return &vector.Vector{Type: vector.Int, Len: n.N, Ints: out, Valid: a.Valid}
}

// datePart returns the named part of a datetime.
func datePart(part string, ns int64) (int64, bool) {
	t := utc(ns)
	switch strings.ToLower(part) {
	case "year":
		return int64(t.Year()), true
	case "quarter":
		return int64(t.Month()-1)/3 + 1, true
	case "month":
		return int64(t.Month()), true
	case "week_of_year", "weekofyear", "week":
		return isoWeek(ns), true
	case "day":
		return int64(t.Day()), true
	case "dayofyear":
		return int64(t.YearDay()), true
	case "hour":
		return int64(t.Hour()), true
	case "minute":
		return int64(t.Minute()), true
	case "second":
		return int64(t.Second()), true
	case "millisecond":
		return int64(t.Nanosecond()) / 1e6, true
	case "microsecond":
		return int64(t.Nanosecond()) / 1e3, true
	case "nanosecond":
		return int64(t.Nanosecond()), true
	}
	return 0, false
}

func evalDatetimePart(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkConstName("datetime_part", args[0], func(p string) bool { _, ok := datePart(p, 0); return ok }); err != nil {
		return nil, err
	}
	return Binary(vector.Int, args[0], args[1], n, ToString, ToTime, datePart), nil
}

// checkConstName reports an unknown literal part or period name as a
// query error rather than a column of nulls.
func checkConstName(fn string, v *vector.Vector, known func(string) bool) error {
	if !v.Const || v.IsNull(0) {
		return nil
	}
	s, _ := ToString(v, 0)
	if known(s) {
		return nil
	}
	return &nameError{fn: fn, name: s}
}

type nameError struct{ fn, name string }

func (e *nameError) Error() string { return e.fn + `: unknown part "` + e.name + `"` }
