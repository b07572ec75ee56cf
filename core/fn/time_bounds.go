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
			Eval: boundEval(func(t time.Time, k int) int64 {
				return start(t, k).UnixNano()
			}),
			Doc: "Start of the " + b.unit + " containing the datetime (optionally offset by a number of " + b.unit + "s)."})
		Register(&Func{Name: "endof" + b.unit, Family: famTime, MinArgs: 1, MaxArgs: 2,
			Result: Sig("endof"+b.unit, vector.DateTime, KTime, KInt),
			Eval: boundEval(func(t time.Time, k int) int64 {
				return start(t, k+1).UnixNano() - lastTick
			}),
			Doc: "Last nanosecond of the " + b.unit + " containing the datetime (optionally offset by a number of " + b.unit + "s)."})
	}
}

func boundEval(f func(t time.Time, k int) int64) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		if len(args) == 1 {
			return timeToTime(args[0], n, func(ns int64) int64 { return f(utc(ns), 0) }), nil
		}
		return Binary(vector.DateTime, args[0], args[1], n, ToTime, ToInt, func(ns, k int64) (int64, bool) {
			return f(utc(ns), int(k)), true
		}), nil
	}
}

// timeToTime maps a datetime column to datetimes, with a tight loop for
// plain datetime input.
func timeToTime(a *vector.Vector, n Rows, f func(int64) int64) *vector.Vector {
	out := timeToInt(a, n, f)
	out.Type = vector.DateTime
	return out
}

// lastTick is how far before the next period endof* lands: one 100 ns
// tick, so the end of a day reads 23:59:59.9999999 as Axiom's pages show.
const lastTick = 100
