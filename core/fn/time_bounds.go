package fn

import (
	"time"

	"github.com/aplite/aplite/vector"
)

// startof*/endof*: the first instant and the last 100 ns tick of the day, week (Sunday
// to Saturday), month or year containing a datetime. An optional second
// argument moves that many periods forward or back first.

func init() {
	bounds := []struct {
		unit string
		f    func(t time.Time, k int) time.Time
	}{
		{"day", func(t time.Time, k int) time.Time {
			return time.Date(t.Year(), t.Month(), t.Day()+k, 0, 0, 0, 0, time.UTC)
		}},
		{"week", func(t time.Time, k int) time.Time {
			return time.Date(t.Year(), t.Month(), t.Day()-int(t.Weekday())+7*k, 0, 0, 0, 0, time.UTC)
		}},
		{"month", func(t time.Time, k int) time.Time {
			return time.Date(t.Year(), t.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
		}},
		{"year", func(t time.Time, k int) time.Time { return time.Date(t.Year()+k, 1, 1, 0, 0, 0, 0, time.UTC) }},
	}
	for _, b := range bounds {
		start := b.f
		Register(&Func{Name: "startof" + b.unit, Family: famTime, MinArgs: 1, MaxArgs: 2,
			Result: Sig("startof"+b.unit, vector.DateTime, KTime, KInt),
			Eval: boundEval(func(t time.Time, k int) (int64, bool) {
				return TimeNanos(start(t, k))
			}),
			Doc: "Start of the " + b.unit + " containing the datetime (optionally offset by a number of " + b.unit + "s)."})
		Register(&Func{Name: "endof" + b.unit, Family: famTime, MinArgs: 1, MaxArgs: 2,
			Result: Sig("endof"+b.unit, vector.DateTime, KTime, KInt),
			Eval: boundEval(func(t time.Time, k int) (int64, bool) {
				// The end of 2262 is past the range: null, as the
				// start of 1677 is.
				ns, ok := TimeNanos(start(t, k+1))
				if !ok {
					return 0, false
				}
				return SubNanos(ns, lastTick)
			}),
			Doc: "Last nanosecond of the " + b.unit + " containing the datetime (optionally offset by a number of " + b.unit + "s)."})
	}
}

// maxPeriods bounds the offset of startof*/endof*: a million days is
// already past the datetime range, and a larger one would overflow the
// calendar arithmetic into a year that looks valid.
const maxPeriods = 1_000_000

// boundEval runs a period bound f, which answers false when the bound is
// outside the datetime range (a null, not a wrapped time).
func boundEval(f func(t time.Time, k int) (int64, bool)) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		if len(args) == 1 && args[0].Type == vector.DateTime && !args[0].Const {
			return timeToTimeChecked(args[0], n, func(ns int64) (int64, bool) { return f(utc(ns), 0) }), nil
		}
		k := vector.NewConst(vector.Int, int64(0), n.N)
		if len(args) == 2 {
			k = args[1]
		}
		return Binary(vector.DateTime, args[0], k, n, ToTime, ToInt, func(ns, k int64) (int64, bool) {
			if k > maxPeriods || k < -maxPeriods {
				return 0, false
			}
			return f(utc(ns), int(k))
		}), nil
	}
}

// timeToTimeChecked maps a datetime column to datetimes in a tight loop;
// a row f answers false for is null.
func timeToTimeChecked(a *vector.Vector, n Rows, f func(int64) (int64, bool)) *vector.Vector {
	out := make([]int64, n.N)
	in := a.Ints[:n.N]
	var valid vector.Bitmap
	for i := range n.Live() {
		v, ok := f(in[i])
		out[i] = v
		if !ok && valid == nil {
			valid = vector.NewBitmapSet(n.N)
			if a.Valid != nil {
				copy(valid, a.Valid)
			}
		}
		if !ok {
			valid.Clear(i)
		}
	}
	if valid == nil {
		valid = a.Valid
	}
	return &vector.Vector{Type: vector.DateTime, Len: n.N, Ints: out, Valid: valid}
}

// lastTick is how far before the next period endof* lands: one 100 ns
// tick, so the end of a day reads 23:59:59.9999999 as Axiom's pages show.
const lastTick = 100
