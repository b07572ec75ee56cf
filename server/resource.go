package server

import (
	"errors"
	"net/http"

	"github.com/fasthttp/router"

	"github.com/aplite/aplite/server/meta"
)

// resource is the generic CRUD of one org-scoped record kind: list, get,
// create, update (PUT) and delete, with the kind's own validation and
// permission rules plugged in. Every response renders the stored record,
// so create, get, list and update always agree byte for byte.
type resource[T any] struct {
	kind meta.Kind
	what string // "annotation", used in messages
	// allowed checks the caller's permission for action on rec (nil for
	// list and before a create body is read).
	allowed func(c *call, action string, rec *T) error
	// newID returns a fresh id.
	newID func() string
	// id returns a record's id; setID sets it.
	id    func(rec *T) string
	setID func(rec *T, id string)
	// create validates a create body into a new record (id unset).
	create func(c *call) (*T, error)
	// update applies an update body to a copy of the stored record.
	update func(c *call, old T) (*T, error)
	// validID checks a path id's form before any lookup (nil: any).
	validID func(id string) error
	// keep filters list results (nil: all); it may read query parameters.
	keep func(c *call) (func(rec *T) bool, error)
	// unique is checked inside the write transaction (nil: none), so two
	// concurrent creates cannot both pass it.
	unique func(tx *meta.Tx, org string, rec *T) error
	// written runs in the same transaction once a create or an update has
	// stored rec (nil: nothing), for what is kept beside the record.
	written func(tx *meta.Tx, c *call, rec *T) error
	// removed runs in the transaction of a delete (nil: nothing), to
	// delete what is kept beside the record.
	removed func(tx *meta.Tx, org, id string) error
	// sortList orders list results (nil: id order).
	sortList func(recs []T)
}

// crudHandlers are the five routes of a resource.
type crudHandlers interface {
	handleList(c *call) error
	handleGet(c *call) error
	handleCreate(c *call) error
	handleUpdate(c *call) error
	handleDelete(c *call) error
}

// crud registers the routes of a resource under path.
func (s *Server) crud(r *router.Router, path, name string, h crudHandlers) {
	r.GET(path, s.wrap(name+"_list", authOrg, h.handleList))
	r.POST(path, s.wrap(name+"_create", authOrg, h.handleCreate))
	r.GET(path+"/{id}", s.wrap(name+"_get", authOrg, h.handleGet))
	r.PUT(path+"/{id}", s.wrap(name+"_update", authOrg, h.handleUpdate))
	r.DELETE(path+"/{id}", s.wrap(name+"_delete", authOrg, h.handleDelete))
}

func (rs *resource[T]) handleList(c *call) error {
	if err := rs.allowed(c, actRead, nil); err != nil {
		return err
	}
	var keep func(*T) bool
	if rs.keep != nil {
		var err error
		if keep, err = rs.keep(c); err != nil {
			return err
		}
	}
	all, err := meta.List[T](c.s.meta, rs.kind, c.p.org)
	if err != nil {
		return err
	}
	out := all[:0]
	for i := range all {
		if keep != nil && !keep(&all[i]) {
			continue
		}
		if rs.allowed(c, actRead, &all[i]) != nil {
			continue
		}
		out = append(out, all[i])
	}
	if rs.sortList != nil {
		rs.sortList(out)
	}
	return writeJSON(c.RequestCtx, http.StatusOK, out)
}

// load reads the record named by the path, answering 404 when absent.
func (rs *resource[T]) load(c *call) (*T, error) {
	id := c.param("id")
	if rs.validID != nil {
		if err := rs.validID(id); err != nil {
			return nil, err
		}
	}
	var rec T
	err := c.s.meta.Get(rs.kind, c.p.org, id, &rec)
	if errors.Is(err, meta.ErrNotFound) {
		return nil, notFound("%s %q not found", rs.what, id)
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

func (rs *resource[T]) handleGet(c *call) error {
	rec, err := rs.load(c)
	if err != nil {
		return err
	}
	if err := rs.allowed(c, actRead, rec); err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, rec)
}

func (rs *resource[T]) handleCreate(c *call) error {
	if err := rs.allowed(c, actCreate, nil); err != nil {
		return err
	}
	rec, err := rs.create(c)
	if err != nil {
		return err
	}
	if err := rs.allowed(c, actCreate, rec); err != nil {
		return err
	}
	rs.setID(rec, rs.newID())
	err = c.s.meta.Update(func(tx *meta.Tx) error {
		if rs.unique != nil {
			if err := rs.unique(tx, c.p.org, rec); err != nil {
				return err
			}
		}
		if err := tx.Insert(rs.kind, c.p.org, rs.id(rec), rec); err != nil || rs.written == nil {
			return err
		}
		return rs.written(tx, c, rec)
	})
	if errors.Is(err, meta.ErrExists) {
		return conflict("%s %q already exists", rs.what, rs.id(rec))
	}
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, rec)
}

func (rs *resource[T]) handleUpdate(c *call) error {
	old, err := rs.load(c)
	if err != nil {
		return err
	}
	if err := rs.allowed(c, actUpdate, old); err != nil {
		return err
	}
	rec, err := rs.update(c, *old)
	if err != nil {
		return err
	}
	if err := rs.allowed(c, actUpdate, rec); err != nil {
		return err
	}
	id := rs.id(old)
	rs.setID(rec, id)
	err = c.s.meta.Update(func(tx *meta.Tx) error {
		if !tx.Has(rs.kind, c.p.org, id) {
			return meta.ErrNotFound
		}
		if rs.unique != nil {
			if err := rs.unique(tx, c.p.org, rec); err != nil {
				return err
			}
		}
		if err := tx.Put(rs.kind, c.p.org, id, rec); err != nil || rs.written == nil {
			return err
		}
		return rs.written(tx, c, rec)
	})
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("%s %q not found", rs.what, id)
	}
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, rec)
}

func (rs *resource[T]) handleDelete(c *call) error {
	rec, err := rs.load(c)
	if err != nil {
		return err
	}
	if err := rs.allowed(c, actDelete, rec); err != nil {
		return err
	}
	err = c.s.meta.Update(func(tx *meta.Tx) error {
		if err := tx.Delete(rs.kind, c.p.org, rs.id(rec)); err != nil || rs.removed == nil {
			return err
		}
		return rs.removed(tx, c.p.org, rs.id(rec))
	})
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("%s %q not found", rs.what, rs.id(rec))
	}
	if err != nil {
		return err
	}
	return noContent(c.RequestCtx)
}

// orgPerm is the allowed rule of resources guarded by one org capability.
func orgPerm[T any](cp orgCap, what string) func(c *call, action string, rec *T) error {
	return func(c *call, action string, _ *T) error {
		return c.p.requireOrg(cp, action, what)
	}
}
