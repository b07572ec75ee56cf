package server

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/server/meta"
)

// Anomaly detection, as Axiom documents it (anomaly-monitors.mdx): the
// query summarizes by bin(_time, ...), and each run compares its latest
// values with what the series' history expects. The run's points are the
// bins at or after the window's end less one interval (what is new since
// the last run); the baseline is every earlier bin of the window, so a
// longer rangeMinutes gives a baseline of more points. With compareDays
// (Axiom's "require seasonality") the baseline is instead the same
// window on each of the compareDays previous days: the value is compared
// with the same time of day.
//
// The expected value is the baseline's median and its spread the median
// absolute deviation (times 1.4826, a standard deviation for normal data),
// robust to an earlier anomaly in the baseline; the tolerated range is
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
func (s *Server) anomalies(m *meta.Monitor, t *render.TabularTable, win runSpan,
	query func(runSpan) (*render.TabularTable, error)) ([]groupResult, error) {
	cur, err := seriesOf(m, t)
	if err != nil {
		return nil, err
	}
	newFrom := win.End.Add(-interval(m))
	baseline := map[string][]float64{}
	if m.CompareDays > 0 {
		for d := int64(1); d <= m.CompareDays; d++ {
			back := time.Duration(d) * 24 * time.Hour
			pt, err := query(runSpan{Start: win.Start.Add(-back), End: win.End.Add(-back)})
			if err != nil {
				return nil, err
			}
			past, err := seriesOf(m, pt)
			if err != nil {
				return nil, err
			}
			for _, sr := range past {
				baseline[sr.key] = append(baseline[sr.key], sr.points...)
			}
		}
	}
	byGroup := map[string]*groupResult{}
	var order []string
	for _, sr := range cur {
		key := sr.key
		g := byGroup[key]
		if g == nil {
			g = &groupResult{Group: key, Keys: sr.keys, Values: sr.values}
			byGroup[key] = g
			order = append(order, key)
		}
		base, now := baseline[key], []float64(nil)
		for i, at := range sr.times {
			switch {
			case !at.Before(newFrom):
				now = append(now, sr.points[i])
			case m.CompareDays == 0:
				base = append(base, sr.points[i])
			}
		}
		judge(m, g, base, now)
	}
	sort.Strings(order)
	out := make([]groupResult, 0, len(order))
	for _, k := range order {
		out = append(out, *byGroup[k])
	}
	if !m.NotifyByGroup { // one alert for the monitor: any series deviates
		return []groupResult{mostAnomalous(out)}, nil
	}
	return out, nil
}

// judge compares a group's new points with its baseline.
func judge(m *meta.Monitor, g *groupResult, base, now []float64) {
	if len(now) == 0 {
		g.Why = "no point in the run's interval"
		return
	}
	if len(base) < minBaseline {
		v := now[len(now)-1]
		g.Value = &v
		g.Why = fmt.Sprintf("the baseline has %d points, fewer than the %d needed to compare", len(base), minBaseline)
		return
	}
	exp, spread := robustCenter(base)
	tol := m.Tolerance
	if tol <= 0 {
		tol = defaultTolerance
	}
	spread = max(spread, 0.01*math.Abs(exp), 1e-9)
	lo, hi := exp-tol*spread, exp+tol*spread
	g.Expected, g.Lower, g.Upper = &exp, &lo, &hi
	for _, v := range now {
		out := (m.Operator != "Below" && m.Operator != "BelowOrEqual" && v > hi) ||
			(m.Operator != "Above" && m.Operator != "AboveOrEqual" && m.Operator != "" && v < lo)
		if out && (!g.Positive || math.Abs(v-exp) > math.Abs(*g.Value-exp)) {
			v := v
			g.Value, g.Positive = &v, true
		}
	}
	if !g.Positive {
		v := now[len(now)-1]
		g.Value = &v
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
func seriesOf(m *meta.Monitor, t *render.TabularTable) ([]*series, error) {
	ti := slices.IndexFunc(t.Fields, func(f render.TabularField) bool { return f.Name == "_time" })
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
