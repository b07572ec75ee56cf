package server

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/server/meta"
)

var (
	monitorTypes     = []string{"Threshold", "MatchEvent", "AnomalyDetection"}
	monitorOperators = []string{"", "Below", "BelowOrEqual", "Above", "AboveOrEqual", "AboveOrBelow"}
)

func monitorResource(s *Server) *resource[meta.Monitor] {
	// read decodes and checks a monitor; old is the stored one on an
	// update (nil on create).
	read := func(c *call, m *meta.Monitor, old *meta.Monitor) error {
		if err := c.s.readJSON(c.RequestCtx, m, false); err != nil {
			return err
		}
		if err := firstErr(required("name", m.Name), maxLen("name", m.Name, 256)); err != nil {
			return err
		}
		if m.Type == "" {
			m.Type = "Threshold"
		}
		if !slices.Contains(monitorTypes, m.Type) {
			return badRequest("type must be one of %s", strings.Join(monitorTypes, ", "))
		}
		if !slices.Contains(monitorOperators, m.Operator) {
			return badRequest("operator must be one of %s", strings.Join(monitorOperators[1:], ", "))
		}
		hasAPL, hasMPL := strings.TrimSpace(m.APLQuery) != "", strings.TrimSpace(m.MPLQuery) != ""
		if hasAPL == hasMPL {
			return badRequest("exactly one of aplQuery and mplQuery is required")
		}
		if hasMPL { // the service keeps one query text and answers it as aplQuery
			m.APLQuery, m.MPLQuery = m.MPLQuery, ""
		}
		if m.IntervalMinutes < 0 || m.RangeMinutes < 0 || m.SecondDelay < 0 {
			return badRequest("intervalMinutes, rangeMinutes and secondDelay must not be negative")
		}
		// Each day compared is one more query per run of an anomaly monitor.
		if m.Tolerance < 0 || math.IsNaN(m.Tolerance) || m.CompareDays < 0 || m.CompareDays > maxCompareDays {
			return badRequest("tolerance must not be negative, and compareDays must be 0 to %d", maxCompareDays)
		}
		m.DisabledUntil = m.DisabledUntil.UTC()
		if hasMPL {
			// A metrics (MPL) query is kept for the clients but not planned:
			// aplite has no metrics engine. Its runs fail to parse as APL and
			// say so in the history, and they act as the caller all the same.
			if len(m.APLQuery) > parser.MaxQueryBytes {
				return badRequest("mplQuery: %d bytes, over the limit of %d bytes", len(m.APLQuery), parser.MaxQueryBytes)
			}
			return nil
		}
		if old != nil && old.APLQuery == m.APLQuery {
			// Unchanged (an MPL query comes back as aplQuery and is re-sent
			// so): the runs check the saver's rights each time anyway.
			return nil
		}
		// The query is checked with the rights of the caller, whom the
		// monitor then acts as (written, monitorPrincipal).
		return c.s.checkStoredAPL(c, "aplQuery", m.APLQuery, nil)
	}
	return &resource[meta.Monitor]{
		kind:    meta.KindMonitor,
		what:    "monitor",
		allowed: orgPerm[meta.Monitor](capMonitors, "monitors"),
		newID:   meta.NewID,
		id:      func(m *meta.Monitor) string { return m.ID },
		setID:   func(m *meta.Monitor, id string) { m.ID = id },
		create: func(c *call) (*meta.Monitor, error) {
			m := &meta.Monitor{}
			if err := read(c, m, nil); err != nil {
				return nil, err
			}
			now := time.Now().UTC()
			m.CreatedAt, m.UpdatedAt, m.CreatedBy = now, now, c.p.userID
			return m, nil
		},
		update: func(c *call, old meta.Monitor) (*meta.Monitor, error) {
			m := &meta.Monitor{}
			if err := read(c, m, &old); err != nil {
				return nil, err
			}
			m.CreatedAt, m.CreatedBy, m.UpdatedAt = old.CreatedAt, old.CreatedBy, time.Now().UTC()
			return m, nil
		},
		written: func(tx *meta.Tx, c *call, m *meta.Monitor) error {
			return tx.Put(meta.KindMonitorOwner, c.p.org, m.ID, ownerOf(c.p))
		},
		removed: func(tx *meta.Tx, org, id string) error {
			for _, k := range []meta.Kind{meta.KindMonitorOwner, meta.KindMonitorState, meta.KindMonitorRuns} {
				if err := tx.Delete(k, org, id); err != nil && !errors.Is(err, meta.ErrNotFound) {
					return err
				}
			}
			return nil
		},
	}
}

// notifierKinds are the keys of a notifier's properties object.
var notifierKinds = []string{"discord", "discordWebhook", "email", "opsgenie", "pagerduty",
	"slack", "webhook", "microsoftTeams", "customWebhook"}

type notifierBody struct {
	Name          string          `json:"name"`
	DisabledUntil time.Time       `json:"disabledUntil"`
	Properties    json.RawMessage `json:"properties"`
}

func (b *notifierBody) validate() error {
	if err := firstErr(required("name", b.Name), maxLen("name", b.Name, 256)); err != nil {
		return err
	}
	var props map[string]json.RawMessage
	if len(b.Properties) == 0 || json.Unmarshal(b.Properties, &props) != nil || props == nil {
		return badRequest("properties is required: an object with one of %s", strings.Join(notifierKinds, ", "))
	}
	n := 0
	for k, v := range props {
		if !slices.Contains(notifierKinds, k) {
			return badRequest("properties.%s is not a notifier kind: use one of %s", k, strings.Join(notifierKinds, ", "))
		}
		if string(v) != "null" {
			n++
		}
	}
	if n == 0 {
		return badRequest("properties must configure one of %s", strings.Join(notifierKinds, ", "))
	}
	return nil
}

func notifierResource(s *Server) *resource[meta.Notifier] {
	read := func(c *call) (*notifierBody, error) {
		var b notifierBody
		if err := c.s.readJSON(c.RequestCtx, &b, false); err != nil {
			return nil, err
		}
		if err := b.validate(); err != nil {
			return nil, err
		}
		return &b, c.s.checkNotifierURLs(b.Properties)
	}
	return &resource[meta.Notifier]{
		kind:    meta.KindNotifier,
		what:    "notifier",
		allowed: orgPerm[meta.Notifier](capNotifiers, "notifiers"),
		newID:   meta.NewID,
		id:      func(n *meta.Notifier) string { return n.ID },
		setID:   func(n *meta.Notifier, id string) { n.ID = id },
		create: func(c *call) (*meta.Notifier, error) {
			b, err := read(c)
			if err != nil {
				return nil, err
			}
			now := time.Now().UTC()
			return &meta.Notifier{Name: b.Name, DisabledUntil: b.DisabledUntil.UTC(), Properties: b.Properties,
				CreatedAt: now, UpdatedAt: now, CreatedBy: c.p.userID}, nil
		},
		update: func(c *call, old meta.Notifier) (*meta.Notifier, error) {
			b, err := read(c)
			if err != nil {
				return nil, err
			}
			old.Name, old.DisabledUntil, old.Properties = b.Name, b.DisabledUntil.UTC(), b.Properties
			old.UpdatedAt = time.Now().UTC()
			return &old, nil
		},
	}
}
