package server

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// schedBase is a whole hour a few hours ago: the tests' events and
// clock start there, whatever the wall clock says.
func schedBase() time.Time { return time.Now().UTC().Truncate(time.Hour).Add(-4 * time.Hour) }

// ingestEvery stores one event every step in [from, to), and returns
// their times.
func (ts *testServer) ingestEvery(ds string, from, to time.Time, step time.Duration) []time.Time {
	ts.t.Helper()
	var b strings.Builder
	var out []time.Time
	for at := from; at.Before(to); at = at.Add(step) {
		fmt.Fprintf(&b, `{"_time":%q,"status":200}`+"\n", at.Format(time.RFC3339Nano))
		out = append(out, at)
	}
	ts.ingestNDJSON(ds, b.String())
	return out
}

// counter creates a threshold monitor that never alerts and records how
// many events each run saw.
func (ts *testServer) counter(name string) string {
	ts.t.Helper()
	var m struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": name, "aplQuery": "['logs'] | count",
		"operator": "Above", "threshold": 1e12, "intervalMinutes": 1, "rangeMinutes": 1}}, 200).json(ts.t, &m)
	return m.ID
}

// history is a monitor's runs.
func (ts *testServer) history(id string) []monitorRun {
	ts.t.Helper()
	var runs []monitorRun
	ts.must(req{method: "GET", path: "/v2/monitors/" + id + "/history"}, 200).json(ts.t, &runs)
	return runs
}

// checkTiled checks that the runs' windows follow one another with no
// gap and no overlap, a minute each, and returns how many events they
// counted.
func checkTiled(t *testing.T, runs []monitorRun) int {
	t.Helper()
	seen := 0
	for i, r := range runs {
		if r.State != "ok" || r.Value == nil {
			t.Fatalf("run %d: %+v", i, r)
		}
		seen += int(*r.Value)
		if d := r.QueryEndTime.Sub(r.QueryStartTime); d != time.Minute {
			t.Fatalf("run %d queried %s, want 1m: %+v", i, d, r)
		}
		if i > 0 && !r.QueryStartTime.Equal(runs[i-1].QueryEndTime) {
			t.Fatalf("run %d starts at %s, the previous ended at %s: a gap or an overlap",
				i, r.QueryStartTime, runs[i-1].QueryEndTime)
		}
	}
	return seen
}

// countIn is how many of ts fall in [from, to).
func countIn(times []time.Time, from, to time.Time) int {
	n := 0
	for _, at := range times {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// A 1-minute monitor with a 1-minute range, driven by 15 s ticks that
// come early or late (and once stall for over two minutes), runs once a
// minute over windows that tile time: every event is counted by exactly
// one run. (Measured from the last tick, it ran at 75 s intervals and
// never saw the events in between.)
func TestMonitorWindowsTileTime(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.createDataset("logs")
	base := schedBase()
	events := ts.ingestEvery("logs", base, base.Add(40*time.Minute), 7*time.Second)
	id := ts.counter("tiles")

	rnd := rand.New(rand.NewSource(1))
	clock := base.Add(1 * time.Second)
	for clock.Before(base.Add(35 * time.Minute)) {
		ts.s.runDueMonitors(clock)
		step := 15*time.Second + time.Duration(rnd.Int63n(int64(4*time.Second))) - 2*time.Second
		if clock.Sub(base) > 20*time.Minute && clock.Sub(base) < 20*time.Minute+15*time.Second {
			step = 150 * time.Second // the server stalls
		}
		clock = clock.Add(step)
	}
	runs := ts.history(id)
	if len(runs) < 34 {
		t.Fatalf("%d runs in 35 minutes of a 1-minute monitor", len(runs))
	}
	for i := 1; i < len(runs); i++ {
		if d := runs[i].Time.Sub(runs[i-1].Time); d != time.Minute {
			t.Fatalf("runs %d and %d are %s apart, want 1m", i-1, i, d)
		}
	}
	seen := checkTiled(t, runs)
	if want := countIn(events, runs[0].QueryStartTime, runs[len(runs)-1].QueryEndTime); seen != want {
		t.Fatalf("the runs counted %d events, %d fall in their windows", seen, want)
	}
}

// Across a restart the runs missed while the server was down are caught
// up, their windows continuing the schedule; after a longer outage the
// last maxCatchUp are, and the history says how many were not.
func TestMonitorCatchUpAfterRestart(t *testing.T) {
	dir := t.TempDir()
	ts := newTestServerConfig(t, Config{DataDir: dir, MonitorTick: -1})
	ts.createDataset("logs")
	base := schedBase()
	events := ts.ingestEvery("logs", base, base.Add(15*time.Minute), 5*time.Second)
	id := ts.counter("restart")
	for clock := base; clock.Before(base.Add(5 * time.Minute)); clock = clock.Add(15 * time.Second) {
		ts.s.runDueMonitors(clock)
	}
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}

	ts = newTestServerConfig(t, Config{DataDir: dir, Token: ts.token, MonitorTick: -1})
	ts.s.runDueMonitors(base.Add(12*time.Minute + 20*time.Second))
	runs := ts.history(id)
	if len(runs) != 13 {
		t.Fatalf("%d runs after the restart, want 13 (5 before, 8 caught up): %+v", len(runs), runs)
	}
	if seen, want := checkTiled(t, runs), countIn(events, base.Add(-time.Minute), base.Add(12*time.Minute)); seen != want {
		t.Fatalf("counted %d events, %d were in the windows", seen, want)
	}

	// Three hours down: 180 runs were due, the last 60 are caught up.
	ts.s.runDueMonitors(base.Add(3*time.Hour + 12*time.Minute + 20*time.Second))
	runs = ts.history(id)
	var skipped []monitorRun
	for _, r := range runs {
		if r.State == "skipped" {
			skipped = append(skipped, r)
		}
	}
	from := base.Add(13 * time.Minute).Format(time.RFC3339)
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error, "120 runs due from "+from) ||
		!strings.Contains(skipped[0].Error, "at most 60 missed runs are caught up") {
		t.Fatalf("skipped runs: %+v", skipped)
	}
	last := runs[len(runs)-maxCatchUp:]
	checkTiled(t, last)
	if !last[len(last)-1].Time.Equal(base.Add(3*time.Hour + 12*time.Minute)) {
		t.Fatalf("the last run was due at %s", last[len(last)-1].Time)
	}
}

// A state stored by an aplite from before the schedule (its last run
// only) continues an interval after that run.
func TestMonitorScheduleFromOlderState(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.createDataset("logs")
	id := ts.counter("old")
	last := schedBase().Add(17 * time.Second)
	if err := ts.s.meta.Put(meta.KindMonitorState, ts.org, id, monitorState{LastRun: last}); err != nil {
		t.Fatal(err)
	}
	ts.s.runDueMonitors(last.Add(150 * time.Second))
	runs := ts.history(id)
	if len(runs) != 2 || !runs[0].Time.Equal(last.Add(time.Minute)) || !runs[0].QueryStartTime.Equal(last) ||
		!runs[1].QueryStartTime.Equal(runs[0].QueryEndTime) {
		t.Fatalf("runs %+v", runs)
	}
}
