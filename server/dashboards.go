package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// dashboardBody is a create or update body; the dashboard document itself
// is kept raw, as the clients treat it.
type dashboardBody struct {
	UID       string          `json:"uid"`
	Dashboard json.RawMessage `json:"dashboard"`
	Overwrite bool            `json:"overwrite"`
	Message   string          `json:"message"`
}

// withUID returns the dashboard document with its "uid" member set, and
// the uid it carried before (if any).
func withUID(doc json.RawMessage, uid string) (json.RawMessage, string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil || m == nil {
		return nil, "", badRequest("dashboard must be a JSON object")
	}
	var had string
	if raw, ok := m["uid"]; ok {
		json.Unmarshal(raw, &had)
	}
	if uid == "" {
		uid = had
	}
	if uid == "" {
		uid = meta.NewID()
	}
	enc, _ := json.Marshal(uid)
	m["uid"] = enc
	out, err := json.Marshal(m)
	return out, had, err
}

func (s *Server) handleListDashboards(c *call) error {
	if err := c.p.requireOrg(capDashboards, actRead, "dashboards"); err != nil {
		return err
	}
	all, err := meta.List[meta.Dashboard](s.meta, meta.KindDashboard, c.p.org)
	if err != nil {
		return err
	}
	args := c.QueryArgs()
	offset, limit := 0, len(all)
	for _, p := range []struct {
		name string
		dst  *int
	}{{"offset", &offset}, {"limit", &limit}} {
		if v := args.Peek(p.name); len(v) > 0 {
			n, err := strconv.Atoi(string(v))
			if err != nil || n < 0 {
				return badRequest("%s must be a non-negative integer", p.name)
			}
			*p.dst = n
		}
	}
	offset = min(offset, len(all))
	all = all[offset:]
	all = all[:min(limit, len(all))]
	return writeJSON(c.RequestCtx, http.StatusOK, all)
}

func (s *Server) loadDashboard(c *call) (*meta.Dashboard, error) {
	id := c.param("id")
	var d meta.Dashboard
	err := s.meta.Get(meta.KindDashboard, c.p.org, id, &d)
	if errors.Is(err, meta.ErrNotFound) {
		return nil, notFound("dashboard %q not found", id)
	}
	return &d, err
}

func (s *Server) handleGetDashboard(c *call) error {
	if err := c.p.requireOrg(capDashboards, actRead, "dashboards"); err != nil {
		return err
	}
	d, err := s.loadDashboard(c)
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, d)
}

func (s *Server) handleCreateDashboard(c *call) error {
	if err := c.p.requireOrg(capDashboards, actCreate, "dashboards"); err != nil {
		return err
	}
	var b dashboardBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if len(b.Dashboard) == 0 {
		return badRequest("dashboard is required")
	}
	doc, _, err := withUID(b.Dashboard, strings.TrimSpace(b.UID))
	if err != nil {
		return err
	}
	if err := s.checkCharts(c, doc); err != nil {
		return err
	}
	var uid string
	var probe struct {
		UID string `json:"uid"`
	}
	json.Unmarshal(doc, &probe)
	uid = probe.UID
	now := time.Now().UTC()
	d := meta.Dashboard{ID: uid, UID: uid, Version: 1, Dashboard: doc, CreatedAt: now, UpdatedAt: now,
		CreatedBy: c.p.userID, UpdatedBy: c.p.userID}
	err = s.meta.Update(func(tx *meta.Tx) error {
		var old meta.Dashboard
		if err := tx.Get(meta.KindDashboard, c.p.org, uid, &old); err == nil {
			if !b.Overwrite {
				return conflict("dashboard %q already exists (set overwrite to replace it)", uid)
			}
			d.Version, d.CreatedAt, d.CreatedBy = old.Version+1, old.CreatedAt, old.CreatedBy
		}
		return tx.Put(meta.KindDashboard, c.p.org, uid, d)
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, d)
}

func (s *Server) handleUpdateDashboard(c *call) error {
	if err := c.p.requireOrg(capDashboards, actUpdate, "dashboards"); err != nil {
		return err
	}
	var b dashboardBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if len(b.Dashboard) == 0 {
		return badRequest("dashboard is required")
	}
	id := c.param("id")
	doc, _, err := withUID(b.Dashboard, id)
	if err != nil {
		return err
	}
	if err := s.checkCharts(c, doc); err != nil {
		return err
	}
	var d meta.Dashboard
	err = s.meta.Update(func(tx *meta.Tx) error {
		if err := tx.Get(meta.KindDashboard, c.p.org, id, &d); err != nil {
			return err
		}
		d.Dashboard, d.Version = doc, d.Version+1
		d.UpdatedAt, d.UpdatedBy = time.Now().UTC(), c.p.userID
		return tx.Put(meta.KindDashboard, c.p.org, id, d)
	})
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("dashboard %q not found", id)
	}
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, d)
}

func (s *Server) handleDeleteDashboard(c *call) error {
	if err := c.p.requireOrg(capDashboards, actDelete, "dashboards"); err != nil {
		return err
	}
	id := c.param("id")
	err := s.meta.Delete(meta.KindDashboard, c.p.org, id)
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("dashboard %q not found", id)
	}
	if err != nil {
		return err
	}
	return noContent(c.RequestCtx)
}

// dashboardCharts is the part of a dashboard document whose queries the
// server checks: charts[].query.apl (the rest is kept as sent).
type dashboardCharts struct {
	Charts []struct {
		Query *struct {
			APL string `json:"apl"`
		} `json:"query"`
	} `json:"charts"`
}

// checkCharts checks the APL of every chart of a dashboard document with
// the caller's rights, as every stored query is (stored.go). A document
// whose charts are not in that shape carries no query the server knows.
func (s *Server) checkCharts(c *call, doc json.RawMessage) error {
	var d dashboardCharts
	if json.Unmarshal(doc, &d) != nil {
		return nil
	}
	for i, ch := range d.Charts {
		if ch.Query == nil || strings.TrimSpace(ch.Query.APL) == "" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(ch.Query.APL)), "declare ") {
			// A chart that takes the dashboard's filters (`declare
			// query_parameters`, which aplite's APL does not have): the
			// server never runs it, a viewer does, with the viewer's rights.
			continue
		}
		if err := s.checkStoredAPL(c, fmt.Sprintf("dashboard.charts[%d].query.apl", i), ch.Query.APL, nil); err != nil {
			return err
		}
	}
	return nil
}
