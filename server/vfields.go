package server

import (
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
