package exec

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// ColDef is one column of a relation: its name and APL type. It is the
// plan's field, so a planned schema and a built one convert for free.
type ColDef = plan.Field

// Schema is the ordered column list of a relation.
type Schema []ColDef

// Index returns the position of the column called name, or -1.
func (s Schema) Index(name string) int {
	for i, c := range s {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Batch is the unit that flows between operators: a vector.Batch (its
// contract on Sel and dead rows holds here) plus, for scans, a loader
// that decodes a column the first time an operator asks for it, so a
// query decodes only the columns it touches.
//
// Ownership: an operator may replace Sel and append or replace entries
// of Cols in a batch it received, but must not modify a vector it did not
// create; vectors can be shared with the storage layer and its caches.
type Batch struct {
	vector.Batch // nil entries of Cols are not loaded yet
	load         func(i int) (*vector.Vector, error)
	// cell, when set, reads one physical row of a column not loaded yet
	// without loading the column: a vector and the row's index in it. Only
	// the scan sets it; a batch derived from another leaves it nil.
	cell func(i, row int) (*vector.Vector, int, error)
	// scratch, when set, lends the buffers expressions over this batch
	// write into (scratch.go states who may set it and when they return).
	scratch *scratch
}

// cellOf returns a vector holding physical row row of column i and the
// row's index in it, reading as little as the batch allows.
func (b *Batch) cellOf(i, row int) (*vector.Vector, int, error) {
	if b.Cols[i] == nil && b.cell != nil {
		return b.cell(i, row)
	}
	v, err := b.Col(i)
	return v, row, err
}

// NewBatch wraps dense columns.
func NewBatch(vecs []*vector.Vector, n int) *Batch {
	return &Batch{Batch: vector.Batch{Cols: vecs, N: n}}
}

// Col returns column i, decoding it on first use.
func (b *Batch) Col(i int) (*vector.Vector, error) {
	if v := b.Cols[i]; v != nil {
		return v, nil
	}
	v, err := b.load(i)
	if err != nil {
		return nil, err
	}
	b.Cols[i] = v
	return v, nil
}

// loadAll decodes every column.
func (b *Batch) loadAll() error {
	for i := range b.Cols {
		if _, err := b.Col(i); err != nil {
			return err
		}
	}
	return nil
}

// LoadCompact loads every column and gathers the live rows so sel is nil.
func (b *Batch) LoadCompact() error {
	if err := b.loadAll(); err != nil {
		return err
	}
	if b.Sel != nil {
		b.Batch.Compact()
		b.load = nil
		b.cell = nil
	}
	return nil
}

// rows returns the rows a registry function computes over b: all of them
// and the live ones.
func (b *Batch) rows() fn.Rows { return fn.Rows{N: b.N, Sel: b.Sel} }

// LiveRows returns the live physical row numbers (allocating when sel is nil).
func (b *Batch) LiveRows() []int32 {
	if b.Sel != nil {
		return b.Sel
	}
	s := make([]int32, b.N)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// concat appends the live rows of batches into one dense batch with the
// given schema. Column types must already agree with the schema.
func concat(s Schema, parts []*Batch) (*Batch, error) {
	total := 0
	for _, p := range parts {
		if err := p.LoadCompact(); err != nil {
			return nil, err
		}
		total += p.N
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	vecs := make([]*vector.Vector, len(s))
	for c := range s {
		v := vector.New(s[c].Type, total)
		for _, p := range parts {
			appendVector(v, p.Cols[c])
		}
		vecs[c] = v
	}
	return NewBatch(vecs, total), nil
}

// appendVector appends every row of src to dst (same type, or dst Dynamic).
func appendVector(dst, src *vector.Vector) {
	if dst.Type == src.Type && !src.Const && src.Codes == nil && dst.Codes == nil && src.Valid == nil && dst.Valid == nil {
		switch dst.Type {
		case vector.Int, vector.DateTime, vector.TimeSpan:
			dst.Ints = append(dst.Ints, src.Ints...)
			dst.Len += src.Len
			return
		case vector.Float:
			dst.Floats = append(dst.Floats, src.Floats...)
			dst.Len += src.Len
			return
		case vector.String:
			dst.Strs = append(dst.Strs, src.Strs...)
			dst.Len += src.Len
			return
		}
	}
	if dst.Codes != nil {
		dst.Decode()
	}
	for i := 0; i < src.Len; i++ {
		if dst.Type == src.Type {
			dst.AppendFrom(src, i)
		} else {
			dst.AppendValue(ConvertValue(src.Value(i), dst.Type))
		}
	}
}
