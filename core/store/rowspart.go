package store

import (
	"sync"

	"github.com/aplite/aplite/vector"
)

// Names of the system columns every part exposes.
const (
	TimeField    = "_time"
	SysTimeField = "_sysTime"
)

// rowsPart is a Part over one Rows batch of the in-memory buffer.
type rowsPart struct {
	id       string
	rows     *Rows
	min, max int64
	metaOnce sync.Once
	meta     []ColumnMeta
}

// NewRowsPart returns a Part that scans r, which must not change afterwards.
func NewRowsPart(id string, r *Rows) Part {
	p := &rowsPart{id: id, rows: r}
	for i, t := range r.Time {
		if i == 0 || t < p.min {
			p.min = t
		}
		if i == 0 || t > p.max {
			p.max = t
		}
	}
	return p
}

func (p *rowsPart) ID() string                { return p.id }
func (p *rowsPart) Rows() int                 { return p.rows.N }
func (p *rowsPart) TimeRange() (int64, int64) { return p.min, p.max }
func (p *rowsPart) Immutable() bool           { return false }
func (p *rowsPart) RowsBatch() *Rows          { return p.rows }
func (p *rowsPart) Columns() []ColumnMeta {
	p.metaOnce.Do(func() {
		p.meta = append(p.meta,
			ColumnMeta{Key: ColKey{TimeField, vector.DateTime}, Min: p.min, Max: p.max},
			ColumnMeta{Key: ColKey{SysTimeField, vector.DateTime}, Min: p.rows.SysTime, Max: p.rows.SysTime})
		for i, k := range p.rows.Keys {
			p.meta = append(p.meta, ColumnMeta{Key: k, NullCount: nullCount(p.rows.Cols[i])})
		}
	})
	return p.meta
}

func nullCount(v *vector.Vector) int {
	if v.Type == vector.Null {
		return v.Len
	}
	if v.Valid == nil {
		return 0
	}
	return v.Len - v.Valid.Count()
}

func (p *rowsPart) ReadColumn(k ColKey) (*vector.Vector, error) {
	switch {
	case k == ColKey{TimeField, vector.DateTime}:
		return &vector.Vector{Type: vector.DateTime, Len: p.rows.N, Ints: p.rows.Time}, nil
	case k == ColKey{SysTimeField, vector.DateTime}:
		return vector.NewConst(vector.DateTime, p.rows.SysTime, p.rows.N).Materialize(), nil
	}
	if v := p.rows.Column(k); v != nil {
		return v, nil
	}
	return nil, nil
}
