package server

import (
	"fmt"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// The schedule. A monitor's runs are due at fixed times, T_i = T_0 +
// i·interval, T_0 being the first tick that saw it; run i queries
// [T_i - secondDelay - range, T_i - secondDelay). With rangeMinutes
// equal to intervalMinutes these windows tile time: every event is
// evaluated by exactly one run. A tick (Config.MonitorTick, 15 s)
// performs every run whose time has come, oldest first, each with its
// own scheduled time, so a late or jittered tick delays a run but never
// moves, shortens or drops its window (the scheduler used to measure
// the interval from the tick that ran last, and a tick 59.99999 s later
// skipped a run: 15 s of events were never evaluated).
//
// After a restart the runs missed while the server was down are caught
// up at the first tick, at most maxCatchUp of them per monitor: the
// older ones are recorded as one "skipped" entry in the history that
// says which windows were not evaluated. A disabled monitor's runs pass
// unevaluated; enabled again it starts from the present, not with a
// backlog of old alerts.

// maxCatchUp bounds the missed runs one monitor performs at one tick
// (an hour of a 1-minute monitor).
const maxCatchUp = 60

// runDueMonitors performs, for every monitor, the runs due at or before
// now. now is the scheduler's clock: the ticker's time in a server, the
// time a test chooses.
func (s *Server) runDueMonitors(now time.Time) {
	orgs, err := meta.List[meta.Org](s.meta, meta.KindOrg, "")
	if err != nil {
		return
	}
	for _, o := range orgs {
		mons, err := meta.List[meta.Monitor](s.meta, meta.KindMonitor, o.ID)
		if err != nil {
			continue
		}
		for i := range mons {
			s.runDue(o.ID, &mons[i], now)
		}
	}
}

// runDue performs m's runs due at or before now.
func (s *Server) runDue(org string, m *meta.Monitor, now time.Time) {
	var st monitorState
	_ = s.meta.Get(meta.KindMonitorState, org, m.ID, &st)
	iv := interval(m)
	next := st.nextRun(iv, now)
	if next.After(now) {
		return
	}
	if m.Disabled || now.Before(m.DisabledUntil) {
		st.Next = next.Add(iv * (now.Sub(next)/iv + 1))
		_ = s.meta.Put(meta.KindMonitorState, org, m.ID, &st)
		return
	}
	if due := int64(now.Sub(next)/iv) + 1; due > maxCatchUp {
		skip := due - maxCatchUp
		from := next
		next = next.Add(time.Duration(skip) * iv)
		s.recordRun(org, m.ID, monitorRun{Time: from.UTC(), State: "skipped", Error: fmt.Sprintf(
			"%d runs due from %s to %s were not evaluated (the server was not running): at most %d missed runs are caught up",
			skip, from.UTC().Format(time.RFC3339), next.Add(-iv).UTC().Format(time.RFC3339), maxCatchUp)})
	}
	for ; !next.After(now); next = next.Add(iv) {
		st.Next = next.Add(iv)
		s.runMonitor(org, m, &st, next, now)
	}
}

// nextRun is when the monitor's next run is due: the stored schedule,
// or an interval after the last run of a state stored before there was
// one, or now for a monitor never run.
func (st *monitorState) nextRun(iv time.Duration, now time.Time) time.Time {
	switch {
	case !st.Next.IsZero():
		return st.Next
	case !st.LastRun.IsZero():
		return st.LastRun.Add(iv)
	}
	return now
}

func interval(m *meta.Monitor) time.Duration {
	return time.Duration(max(m.IntervalMinutes, 1)) * time.Minute
}

// runSpan is the time range one run queries.
type runSpan struct {
	Start, End time.Time
}

// runWindow is the range the run due at at queries.
func runWindow(m *meta.Monitor, at time.Time) runSpan {
	end := at.Add(-time.Duration(m.SecondDelay) * time.Second)
	rng := time.Duration(m.RangeMinutes) * time.Minute
	if rng <= 0 {
		rng = interval(m)
	}
	return runSpan{Start: end.Add(-rng), End: end}
}

// recordRun appends a run to the monitor's history, which keeps the
// last maxRuns.
func (s *Server) recordRun(org, id string, run monitorRun) {
	var runs []monitorRun
	_ = s.meta.Get(meta.KindMonitorRuns, org, id, &runs)
	runs = append(runs, run)
	if len(runs) > maxRuns {
		runs = runs[len(runs)-maxRuns:]
	}
	_ = s.meta.Put(meta.KindMonitorRuns, org, id, runs)
}
