package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// Monitors that run (issue 13). The scheduler (monitor_sched.go)
// performs each enabled monitor's runs at fixed times an interval apart,
// each over [T - secondDelay - rangeMinutes, T - secondDelay) for its
// scheduled time T: a Threshold monitor compares the query's value (per
// group with notifyByGroup) with its operator and threshold, a
// MatchEvent monitor notifies every batch of matching events, each
// event in its own notification (as Axiom does, at most
// maxMatchNotifications per run), and an AnomalyDetection monitor
// compares the query's latest values with what the rest of its series
// expects (monitor_anomaly.go); any fires on an empty result with
// alertOnNoData. A group alerts once triggerAfterNPositiveResults of its
// last triggerFromNRuns runs were positive (1 of 1 by default), notifies
// again on every run with notifyEveryRun, and resolves when a run is
// negative. As axiom-go documents, resolvable has no effect on threshold
// (nor anomaly) monitors, which always resolve unless skipResolved; a
// match monitor's alert resolves only when it is resolvable. State and
// the last runs are kept in the metadata store; GET
// /v2/monitors/{id}/history reads the runs. A monitor reads with the
// rights of whoever last saved it (monitor_owner.go), never with the
// whole org's.

// monitorState is one monitor's alert state, per group ("" without
// notifyByGroup), and its schedule.
type monitorState struct {
	LastRun time.Time              `json:"lastRun"`
	Next    time.Time              `json:"next,omitzero"` // when the next run is due
	Groups  map[string]*groupState `json:"groups"`
}

type groupState struct {
	State  string    `json:"state"` // "ok" or "alert"
	Since  time.Time `json:"since"`
	Recent []bool    `json:"recent"` // positive results, oldest first
	// Keys and Values name the group, for its resolution once the query
	// no longer returns it.
	Keys   []string `json:"keys,omitempty"`
	Values []any    `json:"values,omitempty"`
}

// monitorRun is one evaluation, as the history route returns it. Time
// is the time the run was due; the query read [QueryStartTime,
// QueryEndTime). State is ok, alert, error (the query failed), forbidden
// (the monitor's creator may not read what the query reads, or is gone:
// nothing was read) or skipped (runs missed while the server was down,
// past what is caught up).
type monitorRun struct {
	Time           time.Time       `json:"time"`
	QueryStartTime time.Time       `json:"queryStartTime,omitzero"`
	QueryEndTime   time.Time       `json:"queryEndTime,omitzero"`
	State          string          `json:"state"`
	Value          *float64        `json:"value,omitempty"`
	Groups         []groupResult   `json:"groups,omitempty"`
	Error          string          `json:"error,omitempty"`
	Notified       []deliveryEntry `json:"notified,omitempty"`
	// Unnotified counts the matching events past maxMatchNotifications.
	Unnotified int `json:"matchesNotNotified,omitempty"`
}

type groupResult struct {
	Group    string   `json:"group"`
	Value    *float64 `json:"value,omitempty"`
	Positive bool     `json:"positive"`
	State    string   `json:"state"`
	Change   string   `json:"change,omitempty"` // triggered, resolved, renotified, matched
	// Keys and Values are the group's fields and values (notifyByGroup).
	Keys   []string `json:"-"`
	Values []any    `json:"-"`
	// Events are a match monitor's matching events, at most
	// maxMatchNotifications; Matches counts them all.
	Events  []map[string]any `json:"-"`
	Matches int              `json:"-"`
	// Expected, Lower and Upper are an anomaly monitor's expected value
	// and the range it tolerates around it.
	Expected *float64 `json:"expected,omitempty"`
	Lower    *float64 `json:"lower,omitempty"`
	Upper    *float64 `json:"upper,omitempty"`
	// Why says what a run could not compare (an anomaly monitor without
	// enough history for a baseline).
	Why string `json:"note,omitempty"`
}

// maxRuns is how many runs a monitor's history keeps.
const maxRuns = 100

// maxMatchNotifications is how many matching events one run of a match
// monitor notifies, one notification each (Axiom sends at most 10 a
// minute); the run records how many more matched.
const maxMatchNotifications = 10

// startMonitors runs the scheduler until the server's life ends.
func (s *Server) startMonitors() {
	if s.cfg.MetaRole == MetaFollow || s.cfg.MonitorTick < 0 {
		return // query nodes read; the owning node evaluates
	}
	go func() {
		t := time.NewTicker(s.cfg.MonitorTick)
		defer t.Stop()
		for {
			select {
			case <-s.life.Done():
				return
			case now := <-t.C:
				s.runDueMonitors(now)
			}
		}
	}()
}

// runMonitor performs m's run due at at (now is the clock, later when
// the run is caught up), updates its state, notifies, and records the
// run.
func (s *Server) runMonitor(org string, m *meta.Monitor, st *monitorState, at, now time.Time) monitorRun {
	win := runWindow(m, at)
	run := monitorRun{Time: at.UTC(), QueryStartTime: win.Start.UTC(), QueryEndTime: win.End.UTC()}
	results, err := s.evaluate(org, m, win, at, now)
	var refused *forbiddenRun
	if errors.As(err, &refused) {
		run.State, run.Error = "forbidden", err.Error()
	} else if err != nil {
		run.State, run.Error = "error", err.Error()
	} else {
		run.State = "ok"
		if st.Groups == nil {
			st.Groups = map[string]*groupState{}
		}
		results = withGoneGroups(st, results)
		for i := range results {
			r := &results[i]
			g := st.Groups[r.Group]
			if g == nil {
				g = &groupState{State: "ok", Since: at}
				st.Groups[r.Group] = g
			}
			g.Keys, g.Values = r.Keys, r.Values
			r.Change = step(m, g, r.Positive, at)
			if r.Matches > 0 { // every batch of matches notifies
				r.Change = "matched"
				run.Unnotified += r.Matches - len(r.Events)
			}
			r.State = g.State
			if g.State == "alert" {
				run.State = "alert"
			}
			if run.Value == nil || r.Value != nil && *r.Value > *run.Value {
				run.Value = r.Value
			}
			if r.Change != "" {
				run.Notified = append(run.Notified, s.notify(org, m, *r, win, now)...)
			}
		}
		run.Groups = results
	}
	st.LastRun = at
	_ = s.meta.Put(meta.KindMonitorState, org, m.ID, st)
	s.recordRun(org, m.ID, run)
	return run
}

// withGoneGroups adds a negative result for each group in alert that
// the query no longer returns (a series gone idle), so that it resolves
// as Axiom's do, with no value.
func withGoneGroups(st *monitorState, results []groupResult) []groupResult {
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.Group] = true
	}
	var gone []string
	for k, g := range st.Groups {
		if !seen[k] && g.State == "alert" {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		g := st.Groups[k]
		results = append(results, groupResult{Group: k, Keys: g.Keys, Values: g.Values})
	}
	return results
}

// step moves a group's state with one result and says what changed.
func step(m *meta.Monitor, g *groupState, positive bool, now time.Time) string {
	need := max(m.TriggerAfterNPositiveResults, 1)
	window := max(m.TriggerFromNRuns, need)
	g.Recent = append(g.Recent, positive)
	if int64(len(g.Recent)) > window {
		g.Recent = g.Recent[int64(len(g.Recent))-window:]
	}
	hits := int64(0)
	for _, p := range g.Recent {
		if p {
			hits++
		}
	}
	switch {
	case g.State == "ok" && positive && hits >= need:
		g.State, g.Since = "alert", now
		return "triggered"
	case g.State == "alert" && positive:
		if m.NotifyEveryRun {
			return "renotified"
		}
	case g.State == "alert" && !positive:
		g.State, g.Since = "ok", now
		if !m.SkipResolved && (m.Type != "MatchEvent" || m.Resolvable) {
			return "resolved"
		}
	}
	return ""
}

// evaluate runs the monitor's query over win (due at at) and reads one
// result per group.
func (s *Server) evaluate(org string, m *meta.Monitor, win runSpan, at, now time.Time) ([]groupResult, error) {
	p, why := s.monitorPrincipal(org, m.ID, now)
	if p == nil {
		return nil, why
	}
	query := func(w runSpan) (*db.TabularTable, error) {
		req := &db.Request{APL: m.APLQuery, Start: w.Start, End: w.End, Now: at, DisableCache: true,
			Catalog: s.datasets(org), Allowed: func(ds string) bool { return p.canDataset(ds, capQuery, actRead) }}
		if vfs, err := s.virtualFields(org); err == nil {
			req.VirtualFields = engineVFields(vfs)
		}
		ctx, cancel := context.WithTimeout(s.life, s.cfg.QueryTimeout)
		defer cancel()
		res, err := s.queryDB(ctx, req)
		if err != nil {
			return nil, runError(p, why, err)
		}
		return &db.Tabular(res).Tables[0], nil
	}
	t, err := query(win)
	if err != nil {
		return nil, err
	}
	rows := 0
	if len(t.Columns) > 0 {
		rows = len(t.Columns[0])
	}
	if rows == 0 {
		return []groupResult{{Positive: m.AlertOnNoData}}, nil
	}
	switch m.Type {
	case "MatchEvent":
		return []groupResult{matched(t, rows)}, nil
	case "AnomalyDetection":
		return s.anomalies(m, t, win, query)
	}
	vi := valueColumn(t)
	if vi < 0 {
		return nil, fmt.Errorf("a threshold monitor's query must return a numeric column")
	}
	byGroup := map[string]*groupResult{}
	var order []string
	for r := 0; r < rows; r++ {
		key, keys, vals := groupOf(m, t, vi, r)
		g := byGroup[key]
		if g == nil {
			g = &groupResult{Group: key, Keys: keys, Values: vals}
			byGroup[key] = g
			order = append(order, key)
		}
		v, ok := toFloat(t.Columns[vi][r])
		if !ok {
			continue
		}
		if crosses(m.Operator, v, m.Threshold) {
			if !g.Positive || g.Value == nil || math.Abs(v-m.Threshold) > math.Abs(*g.Value-m.Threshold) {
				g.Value = &v
			}
			g.Positive = true
		} else if !g.Positive {
			g.Value = &v
		}
	}
	sort.Strings(order)
	out := make([]groupResult, 0, len(order))
	for _, k := range order {
		out = append(out, *byGroup[k])
	}
	return out, nil
}

// matched is a match monitor's result: the count of matching rows and
// the first maxMatchNotifications of them as events.
func matched(t *db.TabularTable, rows int) groupResult {
	v := float64(rows)
	g := groupResult{Value: &v, Positive: true, Matches: rows}
	for r := 0; r < rows && r < maxMatchNotifications; r++ {
		ev := make(map[string]any, len(t.Fields))
		for j, f := range t.Fields {
			ev[f.Name] = t.Columns[j][r]
		}
		g.Events = append(g.Events, ev)
	}
	return g
}

// valueColumn is the index of the last numeric column, -1 without one.
func valueColumn(t *db.TabularTable) int {
	for j := len(t.Fields) - 1; j >= 0; j-- {
		if f := t.Fields[j]; f.Type == "integer" || f.Type == "float" || f.Type == "long" || f.Type == "real" {
			return j
		}
	}
	return -1
}

// groupOf is row r's group with notifyByGroup (every column but the
// value and _time), as a key and as fields and values.
func groupOf(m *meta.Monitor, t *db.TabularTable, vi, r int) (string, []string, []any) {
	if !m.NotifyByGroup {
		return "", nil, nil
	}
	var parts, keys []string
	var vals []any
	for j, f := range t.Fields {
		if j != vi && f.Name != "_time" {
			parts = append(parts, fmt.Sprintf("%s=%v", f.Name, t.Columns[j][r]))
			keys, vals = append(keys, f.Name), append(vals, t.Columns[j][r])
		}
	}
	return strings.Join(parts, ","), keys, vals
}

// runError says why a monitor's query failed: a dataset its creator may
// not read (nothing is read), or a query that does not run.
func runError(p *principal, why, err error) error {
	var fe *db.ForbiddenError
	switch {
	case errors.As(err, &fe) && why != nil:
		return &forbiddenRun{fmt.Sprintf("%v (dataset %q): nothing was read", why, fe.Dataset)}
	case errors.As(err, &fe):
		return &forbiddenRun{fmt.Sprintf("the monitor's creator, %s, may not query dataset %q: nothing was read", p.who(), fe.Dataset)}
	}
	return fmt.Errorf("the monitor's query failed: %w", err)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// crosses applies a monitor's operator.
func crosses(op string, v, threshold float64) bool {
	switch op {
	case "Below":
		return v < threshold
	case "BelowOrEqual":
		return v <= threshold
	case "AboveOrEqual":
		return v >= threshold
	case "AboveOrBelow":
		return v != threshold
	}
	return v > threshold // Above, and the default
}

// handleMonitorHistory is GET /v2/monitors/{id}/history: the monitor's
// recent runs, oldest first.
func (s *Server) handleMonitorHistory(c *call) error {
	if err := c.p.requireOrg(capMonitors, actRead, "monitors"); err != nil {
		return err
	}
	id := c.param("id")
	var m meta.Monitor
	if err := s.meta.Get(meta.KindMonitor, c.p.org, id, &m); err != nil {
		return notFound("monitor %q not found", id)
	}
	runs := []monitorRun{}
	_ = s.meta.Get(meta.KindMonitorRuns, c.p.org, id, &runs)
	return writeJSON(c.RequestCtx, 200, runs)
}
