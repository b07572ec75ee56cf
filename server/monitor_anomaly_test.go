package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// perMinute stores counts[k] events in minute k after from.
func (ts *testServer) perMinute(ds string, from time.Time, counts []int) {
	ts.t.Helper()
	var b strings.Builder
	for k, n := range counts {
		for i := 0; i < n; i++ {
			at := from.Add(time.Duration(k)*time.Minute + time.Duration(i)*time.Minute/time.Duration(n))
			fmt.Fprintf(&b, `{"_time":%q,"path":"/"}`+"\n", at.Format(time.RFC3339))
		}
	}
	ts.ingestNDJSON(ds, b.String())
}

// anomalyMonitor creates an anomaly detection monitor over the count of
// events per minute.
func (ts *testServer) anomalyMonitor(name, op string, rangeMin, compareDays int) string {
	ts.t.Helper()
	var m struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": name, "type": "AnomalyDetection",
		"aplQuery": "['logs'] | summarize count() by bin(_time, 1m)", "operator": op, "tolerance": 3,
		"intervalMinutes": 1, "rangeMinutes": rangeMin, "compareDays": compareDays}}, 200).json(ts.t, &m)
	return m.ID
}

// changes lists a monitor's state changes as "minute:change", minutes
// counted from base.
func (ts *testServer) changes(id string, base time.Time) []string {
	ts.t.Helper()
	var out []string
	for _, r := range ts.history(id) {
		if r.State == "error" {
			ts.t.Fatalf("run failed: %+v", r)
		}
		for _, g := range r.Groups {
			if g.Change != "" {
				out = append(out, fmt.Sprintf("%d:%s", int(r.Time.Sub(base)/time.Minute), g.Change))
			}
		}
	}
	return out
}

// noisy is n minutes of counts between 20 and 24.
func noisy(n, mult int) []int {
	c := make([]int, n)
	for k := range c {
		c[k] = 20 + (k*mult)%5
	}
	return c
}

// An anomaly monitor alerts on a planted spike (and with AboveOrBelow on
// a planted dip) and not on the normal minutes around it, resolves when
// the series is back, and decides nothing on a baseline too short.
func TestAnomalyMonitorFindsPlantedAnomaly(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.createDataset("logs")
	base := schedBase()
	counts := noisy(90, 7)
	counts[60], counts[75] = 3, 80 // a dip and a spike
	ts.perMinute("logs", base, counts)
	above := ts.anomalyMonitor("spike", "Above", 30, 0)
	both := ts.anomalyMonitor("either", "AboveOrBelow", 30, 0)
	short := ts.anomalyMonitor("short", "Above", 3, 0)
	ts.s.runDueMonitors(base.Add(31 * time.Minute))
	ts.s.runDueMonitors(base.Add(90 * time.Minute)) // catches up minute by minute

	// The run at minute m judges the bin of minute m-1.
	if got := strings.Join(ts.changes(above, base), " "); got != "76:triggered 77:resolved" {
		t.Errorf("Above: %s", got)
	}
	if got := strings.Join(ts.changes(both, base), " "); got != "61:triggered 62:resolved 76:triggered 77:resolved" {
		t.Errorf("AboveOrBelow: %s", got)
	}
	if got := ts.changes(short, base); len(got) != 0 {
		t.Errorf("a 3-minute range (2 baseline points) alerted: %v", got)
	}
	runs := ts.history(above)
	spike := runs[slices.IndexFunc(runs, func(r monitorRun) bool { return r.Time.Equal(base.Add(76 * time.Minute)) })]
	g := spike.Groups[0]
	if *g.Value != 80 || g.Expected == nil || *g.Expected < 20 || *g.Expected > 24 || *g.Upper > 40 || *g.Upper < *g.Expected {
		t.Errorf("the spike's run: value %v, expected %v, upper %v", *g.Value, g.Expected, g.Upper)
	}
	if n := ts.history(short)[5].Groups[0].Why; !strings.Contains(n, "fewer than the 5 needed") {
		t.Errorf("short baseline note %q", n)
	}
}

// With compareDays a spike that comes at the same time every day is
// expected and does not alert, one that comes only today does; without
// it the daily spike alerts too.
func TestAnomalyMonitorSeasonality(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.createDataset("logs")
	base := schedBase()
	today, yesterday := noisy(90, 7), noisy(90, 3)
	today[75], yesterday[75] = 80, 78 // a daily job
	today[82] = 70                    // today only
	ts.perMinute("logs", base, today)
	ts.perMinute("logs", base.Add(-24*time.Hour), yesterday)
	seasonal := ts.anomalyMonitor("daily", "Above", 30, 1)
	plain := ts.anomalyMonitor("plain", "Above", 30, 0)
	ts.s.runDueMonitors(base.Add(31 * time.Minute))
	ts.s.runDueMonitors(base.Add(90 * time.Minute))
	if got := strings.Join(ts.changes(seasonal, base), " "); got != "83:triggered 84:resolved" {
		t.Errorf("compareDays 1: %s", got)
	}
	if got := strings.Join(ts.changes(plain, base), " "); got != "76:triggered 77:resolved 83:triggered 84:resolved" {
		t.Errorf("without compareDays: %s", got)
	}
}

// An anomaly monitor's query must give a series by _time: a run of one
// that does not says so.
func TestAnomalyMonitorNeedsATimeSeries(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.createDataset("logs")
	ts.ingestNDJSON("logs", `{"n":1}`+"\n")
	var m struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "flat", "type": "AnomalyDetection",
		"aplQuery": "['logs'] | count", "operator": "Above", "rangeMinutes": 5}}, 200).json(t, &m)
	ts.s.runDueMonitors(time.Now())
	if r := ts.lastRun(m.ID); r.State != "error" || !strings.Contains(r.Error, "must summarize a numeric value by bin(_time") {
		t.Fatalf("run %+v", r)
	}
}

// A negative tolerance, or compareDays out of range, is refused when the
// monitor is saved, naming the fields.
func TestAnomalyMonitorSettingsChecked(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	for _, bad := range []map[string]any{{"tolerance": -1}, {"compareDays": -1}, {"compareDays": 32}} {
		body := map[string]any{"name": "a", "type": "AnomalyDetection", "aplQuery": "['logs'] | summarize count() by bin(_time, 1m)",
			"operator": "Above"}
		for k, v := range bad {
			body[k] = v
		}
		ts.mustErr(req{method: "POST", path: "/v2/monitors", body: body}, 400, "tolerance must not be negative, and compareDays must be 0 to 31")
	}
}
