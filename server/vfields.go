package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

type vfieldBody struct {
	Dataset     string `json:"dataset"`
	Name        string `json:"name"`
	Expression  string `json:"expression"`
	Description string `json:"description"`
	Type        string `json:"type"`
	Unit        string `json:"unit"`
}

// validate checks the required fields and that the dataset exists in
// the caller's org.
func (b *vfieldBody) validate(c *call) error {
	if err := firstErr(required("dataset", b.Dataset), required("name", b.Name),
		required("expression", b.Expression), maxLen("name", b.Name, 200),
		maxLen("description", b.Description, 1024)); err != nil {
		return err
	}
	if _, err := c.datasets().Info(b.Dataset); err != nil {
		return notFound("dataset %q not found", b.Dataset)
	}
	return nil
}

func vfieldResource(s *Server) *resource[meta.VirtualField] {
	read := func(c *call) (*meta.VirtualField, error) {
		var b vfieldBody
		if err := c.s.readJSON(c.RequestCtx, &b, false); err != nil {
			return nil, err
		}
		if err := b.validate(c); err != nil {
			return nil, err
		}
		if err := s.checkVField(c, &b); err != nil {
			return nil, err
		}
		return &meta.VirtualField{Dataset: b.Dataset, Name: b.Name, Expression: b.Expression,
			Description: b.Description, Type: b.Type, Unit: b.Unit}, nil
	}
	return &resource[meta.VirtualField]{
		kind: meta.KindVField,
		what: "virtual field",
		allowed: func(c *call, action string, v *meta.VirtualField) error {
			if v == nil {
				if ds := string(c.QueryArgs().Peek("dataset")); ds != "" && action == actRead {
					return c.p.requireDataset(ds, capVFields, action, "read the virtual fields of")
				}
				return nil // checked per record
			}
			return c.p.requireDataset(v.Dataset, capVFields, action, action+" virtual fields of")
		},
		newID:  meta.NewID,
		id:     func(v *meta.VirtualField) string { return v.ID },
		setID:  func(v *meta.VirtualField, id string) { v.ID = id },
		create: read,
		update: func(c *call, _ meta.VirtualField) (*meta.VirtualField, error) { return read(c) },
		keep: func(c *call) (func(*meta.VirtualField) bool, error) {
			ds := string(c.QueryArgs().Peek("dataset"))
			return func(v *meta.VirtualField) bool { return ds == "" || v.Dataset == ds }, nil
		},
		unique: func(tx *meta.Tx, org string, v *meta.VirtualField) error {
			all, err := meta.ListTx[meta.VirtualField](tx, meta.KindVField, org)
			if err != nil {
				return err
			}
			for _, o := range all {
				if o.ID != v.ID && o.Dataset == v.Dataset && o.Name == v.Name {
					return conflict("dataset %q already has a virtual field named %q", v.Dataset, v.Name)
				}
			}
			return nil
		},
	}
}

// virtualFields returns the virtual fields of every dataset, for queries.
func (s *Server) virtualFields(org string) (map[string][]meta.VirtualField, error) {
	all, err := meta.List[meta.VirtualField](s.meta, meta.KindVField, org)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]meta.VirtualField)
	for _, v := range all {
		out[v.Dataset] = append(out[v.Dataset], v)
	}
	return out, nil
}

// engineVFields is the org's virtual fields as the engine takes them.
func engineVFields(vfs map[string][]meta.VirtualField) map[string][]db.VirtualField {
	if len(vfs) == 0 {
		return nil
	}
	out := make(map[string][]db.VirtualField, len(vfs))
	for ds, list := range vfs {
		for _, v := range list {
			out[ds] = append(out[ds], db.VirtualField{Name: v.Name, Expression: v.Expression})
		}
	}
	return out
}

// checkVField checks a virtual field's expression at create and update:
// it must parse as an expression alone and plan in the context of its
// dataset (a field the data does not have yet is let through, as for
// every stored query). A subquery in it may read only what the caller
// may read.
func (s *Server) checkVField(c *call, b *vfieldBody) error {
	if err := db.ValidateExpr(b.Expression); err != nil {
		return storedError("expression", err)
	}
	p := c.p
	ctx, cancel := context.WithTimeout(s.life, s.cfg.QueryTimeout)
	defer cancel()
	err := s.vfieldError(ctx, c.datasets(), b.Dataset, db.VirtualField{Name: b.Name, Expression: b.Expression},
		func(ds string) bool { return ds == b.Dataset || p.canDataset(ds, capQuery, actRead) })
	return storedError("expression", err)
}

// vfieldError plans a scan of dataset ds with only the virtual field vf:
// nil when vf would not fail a query of ds.
func (s *Server) vfieldError(ctx context.Context, cat db.Catalog, ds string, vf db.VirtualField, allowed func(string) bool) error {
	if err := db.ValidateExpr(vf.Expression); err != nil {
		return err
	}
	return s.db.Validate(ctx, &db.Request{APL: "['" + strings.ReplaceAll(ds, "'", `\'`) + "']", Now: time.Now(),
		Catalog: cat, Allowed: allowed, VirtualFields: map[string][]db.VirtualField{ds: {vf}}})
}

// goodVFields sorts the virtual fields of the datasets req may read into
// those that plan alone in their dataset (kept, with every field of the
// other datasets) and those that do not (a warning each). A virtual field
// stored before expressions were checked, or one naming a field its data
// no longer has, is skipped this way instead of failing every query of
// its dataset.
func (s *Server) goodVFields(ctx context.Context, req *db.Request) (map[string][]db.VirtualField, []db.Message) {
	reads, err := db.QueryReads(req.APL)
	if err != nil {
		return req.VirtualFields, nil // the query's own syntax error is the answer
	}
	kept := make(map[string][]db.VirtualField, len(req.VirtualFields))
	var skipped []db.Message
	names := make([]string, 0, len(req.VirtualFields))
	for ds := range req.VirtualFields {
		names = append(names, ds)
	}
	sort.Strings(names)
	for _, ds := range names {
		for _, vf := range req.VirtualFields[ds] {
			if reads.AnyTable || containsName(reads.Tables, ds) {
				if err := s.vfieldError(ctx, req.Catalog, ds, vf, nil); err != nil {
					skipped = append(skipped, db.Message{Priority: "warn", Count: 1, Code: "apl_virtualfieldskipped",
						Msg: fmt.Sprintf("virtual field %q of dataset %q is skipped: %v", vf.Name, ds, err)})
					continue
				}
			}
			kept[ds] = append(kept[ds], vf)
		}
	}
	return kept, skipped
}

func containsName(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}

// queryDB runs req; when it fails and one of its virtual fields does not
// plan in its dataset, it runs again without the fields that do not, and
// the answer says which were skipped (apl_virtualfieldskipped).
func (s *Server) queryDB(ctx context.Context, req *db.Request) (*db.Output, error) {
	res, err := s.db.Query(ctx, req)
	if err == nil || len(req.VirtualFields) == 0 || ctx.Err() != nil || !vfieldMayCause(err) {
		return res, err
	}
	if s.cfg.Ingest != "" && dependsOnUnflushed(err) {
		// A query node lacks what the ingest node has not flushed; that
		// node answers the query, skipping its own bad fields.
		return res, err
	}
	kept, skipped := s.goodVFields(ctx, req)
	if len(skipped) == 0 {
		return res, err
	}
	again := *req
	again.VirtualFields = kept
	if res, err = s.db.Query(ctx, &again); err != nil {
		return nil, err
	}
	for _, m := range skipped {
		res = res.WithMessage(m)
	}
	return res, nil
}

// vfieldMayCause reports whether a query error may come from a virtual
// field: not a refusal, a missing dataset or a budget.
func vfieldMayCause(err error) bool {
	var fe *db.ForbiddenError
	return !errors.As(err, &fe) && !errors.Is(err, db.ErrNotFound) && !errors.Is(err, db.ErrMemoryExceeded) &&
		!errors.Is(err, db.ErrNeedsIngest) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
