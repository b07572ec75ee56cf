package server

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// Map fields are top-level (or dotted) field names whose object values
// ingest keeps as one dynamic value instead of flattening them.

func validMapField(name string) error {
	if err := firstErr(required("name", name), maxLen("name", name, 200)); err != nil {
		return err
	}
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return badRequest("name %q is not a field name", name)
	}
	// Names starting with an underscore are the system's (_time,
	// _sysTime, ...), as Axiom reserves them.
	for _, part := range strings.Split(name, ".") {
		if strings.HasPrefix(part, "_") {
			return badRequest("map field name %q is invalid: names starting with '_' are reserved", name)
		}
	}
	return nil
}

func (s *Server) handleListMapFields(c *call) error {
	d, err := s.loadDataset(c)
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, nonNil(d.MapFields))
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// mapFieldsChange runs change on the dataset's map fields for callers
// allowed to update datasets.
func (s *Server) mapFieldsChange(c *call, change func(d *meta.DatasetSettings) error) (*meta.DatasetSettings, error) {
	if err := c.p.requireOrg(capDatasets, actUpdate, "datasets"); err != nil {
		return nil, err
	}
	// datasets:update is enough, as for PUT /v2/datasets/{id}: asking
	// for read visibility too refused tokens that may change every other
	// setting of the dataset (docs/ROUTES.md).
	v, name := c.datasets(), c.param("id")
	if _, err := v.Info(name); err != nil {
		return nil, notFound("dataset %q not found", name)
	}
	return s.updateSettings(v, name, change)
}

func (s *Server) handleCreateMapField(c *call) error {
	var b struct {
		Name string `json:"name"`
	}
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if err := validMapField(b.Name); err != nil {
		return err
	}
	_, err := s.mapFieldsChange(c, func(d *meta.DatasetSettings) error {
		if slices.Contains(d.MapFields, b.Name) {
			return conflict("map field %q already exists", b.Name)
		}
		d.MapFields = append(d.MapFields, b.Name)
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, b)
}

func (s *Server) handleUpdateMapFields(c *call) error {
	var names []string
	if err := s.readJSON(c.RequestCtx, &names, false); err != nil {
		return err
	}
	clean := []string{}
	for _, n := range names {
		if err := validMapField(n); err != nil {
			return err
		}
		if slices.Contains(clean, n) {
			return badRequest("map field %q is listed twice", n)
		}
		clean = append(clean, n)
	}
	d, err := s.mapFieldsChange(c, func(d *meta.DatasetSettings) error {
		d.MapFields = clean
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, nonNil(d.MapFields))
}

func (s *Server) handleDeleteMapField(c *call) error {
	name := c.param("name")
	found := false
	_, err := s.mapFieldsChange(c, func(d *meta.DatasetSettings) error {
		i := slices.Index(d.MapFields, name)
		if i < 0 {
			return nil
		}
		found = true
		d.MapFields = slices.Delete(d.MapFields, i, i+1)
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return notFound("map field %q not found", name)
	}
	return noContent(c.RequestCtx)
}

// trim reads the trim body and queues the deletion; the handlers differ
// only in their answer.
func (s *Server) trim(c *call) error {
	name := c.param("id")
	if !c.p.canDataset(name, capTrim, actDelete) && !c.p.canDataset(name, capTrim, actUpdate) {
		return forbidden("token is not allowed to trim dataset %q", name)
	}
	var b struct {
		MaxDuration string `json:"maxDuration"`
	}
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if err := required("maxDuration", b.MaxDuration); err != nil {
		return err
	}
	d, err := parseSpan(strings.TrimSpace(b.MaxDuration))
	if err != nil {
		return badRequest("maxDuration %q: %v", b.MaxDuration, err)
	}
	err = c.datasets().Trim(name, time.Now().Add(-d).UnixNano())
	if errors.Is(err, db.ErrNotFound) {
		return notFound("dataset %q not found", name)
	}
	return err
}

func (s *Server) handleTrimV1(c *call) error {
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.trim(c); err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, map[string]int64{"numDeleted": 0})
}

func (s *Server) handleTrimV2(c *call) error {
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.trim(c); err != nil {
		return err
	}
	return noContent(c.RequestCtx)
}
