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

// Monitors that run (issue 13). A scheduler evaluates every enabled
// monitor every intervalMinutes over [now - secondDelay - rangeMinutes,
// now - secondDelay): a Threshold monitor compares the query's value
// (per group with notifyByGroup) with its operator and threshold, a
// MatchEvent monitor fires on matching rows, and either fires on an empty
// result with alertOnNoData. A group alerts once triggerAfterNPositiveResults
// of its last triggerFromNRuns runs were positive (1 of 1 by default),
// notifies again on every run with notifyEveryRun, and resolves when a
// run is negative if the monitor is resolvable. State and the last runs
// are kept in the metadata store; GET /v2/monitors/{id}/history reads
// the runs. A monitor reads with the rights of whoever last saved it
// (monitor_owner.go), never with the whole org's.

// monitorState is one monitor's alert state, per group ("" without
// notifyByGroup).
type monitorState struct {
	LastRun time.Time              `json:"lastRun"`
	Groups  map[string]*groupState `json:"groups"`
}

type groupState struct {
	State  string    `json:"state"` // "ok" or "alert"
	Since  time.Time `json:"since"`
	Recent []bool    `json:"recent"` // positive results, oldest first
}

// monitorRun is one evaluation, as the history route returns it. State
// is ok, alert, error (the query failed) or forbidden (the monitor's
// creator may not read what the query reads, or is gone: nothing was
// read).
type monitorRun struct {
	Time     time.Time       `json:"time"`
	State    string          `json:"state"`
	Value    *float64        `json:"value,omitempty"`
	Groups   []groupResult   `json:"groups,omitempty"`
	Error    string          `json:"error,omitempty"`
	Notified []deliveryEntry `json:"notified,omitempty"`
}

type groupResult struct {
	Group    string   `json:"group"`
	Value    *float64 `json:"value,omitempty"`
	Positive bool     `json:"positive"`
	State    string   `json:"state"`
	Change   string   `json:"change,omitempty"` // triggered, resolved, renotified
}

// maxRuns is how many runs a monitor's history keeps.
const maxRuns = 100

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

// runDueMonitors evaluates every enabled monitor whose interval has passed.
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
			m := &mons[i]
			if m.Disabled || now.Before(m.DisabledUntil) {
				continue
			}
			var st monitorState
			_ = s.meta.Get(meta.KindMonitorState, o.ID, m.ID, &st)
			if !st.LastRun.IsZero() && now.Sub(st.LastRun) < interval(m) {
				continue
			}
			s.runMonitor(o.ID, m, &st, now)
		}
	}
}

func interval(m *meta.Monitor) time.Duration {
	return time.Duration(max(m.IntervalMinutes, 1)) * time.Minute
}

// runMonitor evaluates m once at now, updates its state, notifies, and
// records the run.
func (s *Server) runMonitor(org string, m *meta.Monitor, st *monitorState, now time.Time) monitorRun {
	run := monitorRun{Time: now.UTC()}
	results, err := s.evaluate(org, m, now)
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
		for i := range results {
			r := &results[i]
			g := st.Groups[r.Group]
			if g == nil {
				g = &groupState{State: "ok", Since: now}
				st.Groups[r.Group] = g
			}
			r.Change = step(m, g, r.Positive, now)
			r.State = g.State
			if g.State == "alert" {
				run.State = "alert"
			}
			if run.Value == nil || r.Value != nil && *r.Value > *run.Value {
				run.Value = r.Value
			}
			if r.Change != "" {
				run.Notified = append(run.Notified, s.notify(org, m, *r, now)...)
			}
		}
		run.Groups = results
	}
	st.LastRun = now
	_ = s.meta.Put(meta.KindMonitorState, org, m.ID, st)
	var runs []monitorRun
	_ = s.meta.Get(meta.KindMonitorRuns, org, m.ID, &runs)
	runs = append(runs, run)
	if len(runs) > maxRuns {
		runs = runs[len(runs)-maxRuns:]
	}
	_ = s.meta.Put(meta.KindMonitorRuns, org, m.ID, runs)
	return run
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
		if m.Resolvable && !m.SkipResolved {
			return "resolved"
		}
	}
	return ""
}

// evaluate runs the monitor's query over its window and reads one result
// per group.
func (s *Server) evaluate(org string, m *meta.Monitor, now time.Time) ([]groupResult, error) {
	end := now.Add(-time.Duration(m.SecondDelay) * time.Second)
	rng := time.Duration(m.RangeMinutes) * time.Minute
	if rng <= 0 {
		rng = interval(m)
	}
	p, why := s.monitorPrincipal(org, m.ID, now)
	if p == nil {
		return nil, why
	}
	req := &db.Request{APL: m.APLQuery, Start: end.Add(-rng), End: end, Now: now, DisableCache: true,
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
	t := db.Tabular(res).Tables[0]
	rows := 0
	if len(t.Columns) > 0 {
		rows = len(t.Columns[0])
	}
	if rows == 0 {
		return []groupResult{{Positive: m.AlertOnNoData}}, nil
	}
	switch m.Type {
	case "MatchEvent":
		v := float64(rows)
		return []groupResult{{Value: &v, Positive: true}}, nil
	case "AnomalyDetection":
		return nil, fmt.Errorf("anomaly detection monitors are not evaluated yet")
	}
	vi := -1
	for j := len(t.Fields) - 1; j >= 0; j-- {
		if f := t.Fields[j]; f.Type == "integer" || f.Type == "float" || f.Type == "long" || f.Type == "real" {
			vi = j
			break
		}
	}
	if vi < 0 {
		return nil, fmt.Errorf("a threshold monitor's query must return a numeric column")
	}
	byGroup := map[string]*groupResult{}
	var order []string
	for r := 0; r < rows; r++ {
		key := ""
		if m.NotifyByGroup {
			var parts []string
			for j, f := range t.Fields {
				if j != vi && f.Name != "_time" {
					parts = append(parts, fmt.Sprintf("%s=%v", f.Name, t.Columns[j][r]))
				}
			}
			key = strings.Join(parts, ",")
		}
		g := byGroup[key]
		if g == nil {
			g = &groupResult{Group: key}
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
