package gen

import (
	"math"
	"sync"
	"time"
)

// Day0 is the start of the first simulated day (UTC). Events of a
// generator fall in [Day0, Day0+24h) while it has produced fewer events
// than its events-per-day setting, then carry on into the following days.
var Day0 = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

// Traffic follows the sun: the rate of requests is
// 1 + diurnalAmp·sin(2π(x − diurnalPhase)) at fraction x of the day, so
// the busiest minute (15:00) sees four times the traffic of the quietest
// (03:00), and `bin(_time, 1m)` buckets are not all alike.
const (
	diurnalAmp   = 0.6
	diurnalPhase = 0.375
	clockSteps   = 4096
)

// Backfill: a few percent of events arrive late (retries, buffered
// shippers), so _time is mostly but not strictly increasing.
const (
	backfillShare = 0.03
	backfillMean  = 90 * time.Second
)

var (
	clockOnce  sync.Once
	clockTable [clockSteps + 1]float64
)

// dayFraction maps a uniform position u in [0,1) of the day's events to
// the fraction of the day at which that event happens, by inverting the
// cumulative diurnal rate (tabulated once, interpolated linearly).
func dayFraction(u float64) float64 {
	clockOnce.Do(buildClock)
	f := u * clockSteps
	i := int(f)
	if i >= clockSteps {
		return clockTable[clockSteps]
	}
	w := f - float64(i)
	return clockTable[i] + w*(clockTable[i+1]-clockTable[i])
}

// cumRate is the integral of the diurnal rate over [0, x]; cumRate(1) = 1.
func cumRate(x float64) float64 {
	k := 2 * math.Pi
	return x - diurnalAmp/k*(math.Cos(k*(x-diurnalPhase))-math.Cos(-k*diurnalPhase))
}

// buildClock solves cumRate(x) = i/clockSteps for every step by bisection;
// cumRate is strictly increasing because diurnalAmp < 1.
func buildClock() {
	for i := 0; i <= clockSteps; i++ {
		target := float64(i) / clockSteps
		lo, hi := 0.0, 1.0
		for range 60 {
			mid := (lo + hi) / 2
			if cumRate(mid) < target {
				lo = mid
			} else {
				hi = mid
			}
		}
		clockTable[i] = (lo + hi) / 2
	}
}
