package exec

import (
	"github.com/aplite/aplite/core/store"
)

// StoreCatalog adapts a store.DB to the Catalog the engine reads through.
func StoreCatalog(db *store.DB) Catalog { return storeCatalog{db} }

type storeCatalog struct{ db *store.DB }

func (c storeCatalog) Snapshot(name string) (*store.Snapshot, error) {
	d, err := c.db.Get(name)
	if err != nil {
		return nil, err
	}
	return d.Snapshot(), nil
}

func (c storeCatalog) Names() []string {
	var out []string
	for _, d := range c.db.List() {
		out = append(out, d.Name())
	}
	return out
}
