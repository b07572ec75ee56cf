package server

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// Anomaly detection, as Axiom documents it (anomaly-monitors.mdx): the
// query summarizes by bin(_time, ...), and each run compares its latest
// values with what the series' history expects. The run's points are the
// bins at or after the window's end less one interval (what is new since
// the last run; the last bin when bins are longer); the baseline is every
// earlier bin of the window, so a longer rangeMinutes gives a baseline of
// more points. With compareDays
// (Axiom's "require seasonality") each bin is first compared with the
// mean of the same bin on the compareDays previous days (the same query
// over the same window, a day back each): the baseline is the earlier
// bins' differences from their previous days, so a value that rises at
// the same time every day is expected, and one that rises only today is
// not.
//
// The expected value is the baseline's median (plus the previous days'
// value at that time, with compareDays) and its spread the median
// absolute deviation (times 1.4826, a standard deviation for normal
// data), robust to an earlier anomaly in the baseline; the tolerated range is
// expected ± tolerance × spread (tolerance 0, unset, reads as
// defaultTolerance), the spread never under 1% of the expected value so
// a flat baseline does not alert on noise. Above alerts on a point over
// the range, Below under it, AboveOrBelow on either. A baseline of fewer
// than minBaseline points decides nothing (the run says so). As the
// window moves, a series that settles at a new level becomes the
// baseline and the alert resolves, as Axiom's does.

const (
	defaultTolerance = 3
	minBaseline      = 5
)

// series is one group's points, in time order.
type series struct {
	key    string
	keys   []string
	values []any
	times  []time.Time
	points []float64
}

// anomalies evaluates an anomaly monitor's result t over win; query runs
// its query over another window (the previous days').
func (s *Server) anomalies(m *meta.Monitor, t *db.TabularTable, win runSpan,
	query func(runSpan) (*db.TabularTable, error)) ([]groupResult, error) {
	cur, err := seriesOf(m, t)
	if err != nil {
		return nil, err
	}
	var past []map[string]map[time.Time]float64 // per day back: group → time (moved to today) → value
	for d := int64(1); d <= m.CompareDays; d++ {
		back := time.Duration(d) * 24 * time.Hour
		pt, err := query(runSpan{Start: win.Start.Add(-back), End: win.End.Add(-back)})
		if err != nil {
			return nil, err
		}
		ps, err := seriesOf(m, pt)
		if err != nil {
			return nil, err
		}
		day := map[string]map[time.Time]float64{}
		for _, sr := range ps {
			day[sr.key] = map[time.Time]float64{}
			for i, at := range sr.times {
				day[sr.key][at.Add(back)] = sr.points[i]
			}
		}
		past = append(past, day)
	}
	newFrom := win.End.Add(-interval(m))
	out := make([]groupResult, 0, len(cur))
	for _, sr := range cur {
		g := groupResult{Group: sr.key, Keys: sr.keys, Values: sr.values}
		var base []float64
		var now []point
		// The new points are the bins from the run's interval on, or the
		// last bin when the bins are longer than the interval.
		split := sort.Search(len(sr.times), func(i int) bool { return !sr.times[i].Before(newFrom) })
		split = min(split, len(sr.times)-1)
		for i, at := range sr.times {
			p := point{v: sr.points[i]}
			if m.CompareDays > 0 {
				level, ok := seasonal(past, sr.key, at)
				if !ok {
					continue // nothing to compare this bin with
				}
				p.level = level
			}
			if i >= split {
				now = append(now, p)
			} else {
				base = append(base, p.v-p.level)
			}
		}
		judge(m, &g, base, now)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	if len(out) == 0 {
		return []groupResult{{Positive: m.AlertOnNoData}}, nil
	}
	if !m.NotifyByGroup { // one alert for the monitor: any series deviates
		return []groupResult{mostAnomalous(out)}, nil
	}
	return out, nil
}

// point is a value to judge and the seasonal level expected under it
// (the previous days' value at the same time; 0 without compareDays).
type point struct{ v, level float64 }

// seasonal is the mean of the previous days' values of a group at at.
func seasonal(past []map[string]map[time.Time]float64, key string, at time.Time) (float64, bool) {
	sum, n := 0.0, 0
	for _, day := range past {
		if v, ok := day[key][at]; ok {
			sum, n = sum+v, n+1
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// judge compares a group's new points with its baseline (values, or
// with compareDays their differences from the previous days').
func judge(m *meta.Monitor, g *groupResult, base []float64, now []point) {
	if len(now) == 0 {
		g.Why = "no point in the run's interval to compare"
		return
	}
	last := now[len(now)-1].v
	g.Value = &last
	if len(base) < minBaseline {
		g.Why = fmt.Sprintf("the baseline has %d points, fewer than the %d needed to compare", len(base), minBaseline)
		return
	}
	center, spread := robustCenter(base)
	tol := m.Tolerance
	if tol <= 0 {
		tol = defaultTolerance
	}
	above := m.Operator != "Below" && m.Operator != "BelowOrEqual"
	below := m.Operator != "Above" && m.Operator != "AboveOrEqual" && m.Operator != ""
	worst := -1.0
	for _, p := range now {
		exp := p.level + center
		sp := max(spread, 0.01*math.Abs(exp), 1e-9)
		lo, hi := exp-tol*sp, exp+tol*sp
		out := above && p.v > hi || below && p.v < lo
		dev := math.Abs(p.v-exp) / sp
		if out && !g.Positive || out == g.Positive && dev > worst {
			v := p.v
			g.Value, g.Positive, worst = &v, out, dev
			g.Expected, g.Lower, g.Upper = &exp, &lo, &hi
		}
	}
}

// mostAnomalous folds groups into the monitor's one result: positive if
// any is, with the value that deviates most.
func mostAnomalous(gs []groupResult) groupResult {
	best := -1
	score := func(g groupResult) float64 {
		if g.Value == nil || g.Expected == nil {
			return -1
		}
		return math.Abs(*g.Value - *g.Expected)
	}
	for i, g := range gs {
		if best < 0 || g.Positive && !gs[best].Positive || g.Positive == gs[best].Positive && score(g) > score(gs[best]) {
			best = i
		}
	}
	r := gs[best]
	r.Group, r.Keys, r.Values = "", nil, nil
	return r
}

// robustCenter is the median of xs and its scaled median absolute
// deviation.
func robustCenter(xs []float64) (float64, float64) {
	med := median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
	}
	return med, 1.4826 * median(dev)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// seriesOf reads an anomaly monitor's result as one series per group
// (every column but _time and the value; one series without
// notifyByGroup is still split by group, each judged on its own).
func seriesOf(m *meta.Monitor, t *db.TabularTable) ([]*series, error) {
	ti := slices.IndexFunc(t.Fields, func(f db.TabularField) bool { return f.Name == "_time" })
	vi := valueColumn(t)
	if ti < 0 || vi < 0 {
		return nil, fmt.Errorf("an anomaly detection monitor's query must summarize a numeric value by bin(_time, ...)")
	}
	rows := 0
	if len(t.Columns) > 0 {
		rows = len(t.Columns[0])
	}
	byKey := map[string]*series{}
	var out []*series
	for r := 0; r < rows; r++ {
		at, ok := rowTime(t.Columns[ti][r])
		v, okv := toFloat(t.Columns[vi][r])
		if !ok || !okv {
			continue
		}
		grouped := *m
		grouped.NotifyByGroup = true
		key, keys, vals := groupOf(&grouped, t, vi, r)
		sr := byKey[key]
		if sr == nil {
			sr = &series{key: key, keys: keys, values: vals}
			byKey[key] = sr
			out = append(out, sr)
		}
		sr.times, sr.points = append(sr.times, at), append(sr.points, v)
	}
	for _, sr := range out {
		idx := make([]int, len(sr.times))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return sr.times[idx[a]].Before(sr.times[idx[b]]) })
		ts, ps := make([]time.Time, len(idx)), make([]float64, len(idx))
		for i, j := range idx {
			ts[i], ps[i] = sr.times[j], sr.points[j]
		}
		sr.times, sr.points = ts, ps
	}
	return out, nil
}

// rowTime reads a _time cell of a tabular answer.
func rowTime(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// maxCompareDays bounds compareDays: each day is one more query per run.
const maxCompareDays = 31
