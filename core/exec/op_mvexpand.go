package exec

import (
	"github.com/aplite/aplite/vector"
)

// mvExpandStage is mv-expand: every element of a dynamic array (or every
// property of a bag) becomes its own row, the other columns repeated.
// Several columns expand in parallel (zipped); a shorter one is padded
// with nulls. A null value gives one row with null, an empty array or bag
// gives no row, and a scalar gives one row with itself. A column that is
// not dynamic (a string field, say) passes through unchanged, so queries
// such as `mv-expand uri` from Axiom's docs run on plain fields.
//
// It keeps no state, so it runs in the scan workers. Columns it does not
// expand are gathered only if a later operator reads them.
type mvExpandStage struct {
	In, Sch  Schema
	Cols     []mvCol
	IdxSlot  int   // output column of with_itemindex, or -1
	Limit    int64 // maximum rows per input row; 0 means no limit
	BagArray bool  // kind=array: a bag property becomes [key, value]
}

// mvExpandChargeStep is how many bytes of expanded rows mv-expand builds
// between two charges of the memory budget.
const mvExpandChargeStep = 4 << 20

// mvCol is one expanded column.
type mvCol struct {
	E    *Expr
	Slot int
	Typ  vector.Type
	Cast bool // `to typeof(T)` was given
}

// Out implements Stage.
func (s *mvExpandStage) Out() Schema { return s.Sch }

// Apply implements streamStage.
func (s *mvExpandStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	vals := make([]*vector.Vector, len(s.Cols))
	for i, c := range s.Cols {
		v, err := c.E.Run(x, b)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	rows := b.LiveRows()
	var idx []int32
	outs := make([]*vector.Vector, len(s.Cols))
	for i, c := range s.Cols {
		outs[i] = vector.New(c.Typ, len(rows))
	}
	var item *vector.Vector
	if s.IdxSlot >= 0 {
		item = vector.New(vector.Int, len(rows))
	}
	// One input batch can expand into billions of rows (a constant
	// range() of a million values on every row), all built here before
	// anything downstream sees them. The rows built so far are charged to
	// the query's memory budget as they grow, and released when the batch
	// leaves (the operators that keep rows charge for them again), so the
	// Batch fails with ErrMemoryExceeded instead of exhausting the
	// server; the same checkpoints honour the query's deadline, which a
	// long loop would otherwise outrun.
	charged := int64(0)
	defer func() { x.Budget.Charge(-charged) }()
	// Per row: an int32 index and a 16-byte interface per expanded
	// column, doubled for the slack of growing slices. (The heap the
	// collector lets grow on top of that is not counted: the 2 GB budget
	// failed scripts/badinput's expansion at 4.6 GB of RSS.)
	rowBytes := int64(8 + 32*len(s.Cols))
	if item != nil {
		rowBytes += 16
	}
	grow := func() error {
		g := int64(len(idx))*rowBytes - charged
		if g < mvExpandChargeStep {
			return nil
		}
		charged += g
		if err := x.Budget.Charge(g); err != nil {
			return err
		}
		if x.Ctx != nil {
			return x.Ctx.Err()
		}
		return nil
	}
	elems := make([][]any, len(s.Cols))
	for _, r := range rows {
		if err := grow(); err != nil {
			return nil, err
		}
		n := 0
		for i, v := range vals {
			elems[i] = s.elements(v, int(r), elems[i][:0])
			n = max(n, len(elems[i]))
		}
		if s.Limit > 0 && int64(n) > s.Limit {
			n = int(s.Limit)
		}
		for k := 0; k < n; k++ {
			if k&0xffff == 0xffff {
				// A single row with a huge array: check inside it too.
				if err := grow(); err != nil {
					return nil, err
				}
			}
			idx = append(idx, r)
			for i, c := range s.Cols {
				var e any
				if k < len(elems[i]) {
					e = elems[i][k]
				}
				if c.Cast {
					e = mvCast(e, c.Typ)
				}
				outs[i].AppendValue(e)
			}
			if item != nil {
				item.AppendInt(int64(k))
			}
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	return s.assemble(b, idx, outs, item), nil
}

// assemble builds the output batch: expanded columns are set, the others
// are gathered from b on first use.
func (s *mvExpandStage) assemble(b *Batch, idx []int32, outs []*vector.Vector, item *vector.Vector) *Batch {
	nb := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.Sch)), N: len(idx)}}
	for i, c := range s.Cols {
		nb.Cols[c.Slot] = outs[i]
	}
	if item != nil {
		nb.Cols[s.IdxSlot] = item
	}
	nb.load = func(i int) (*vector.Vector, error) {
		v, err := b.Col(i)
		if err != nil {
			return nil, err
		}
		return v.Gather(idx), nil
	}
	return nb
}

// elements appends the values row r of v expands into to buf.
func (s *mvExpandStage) elements(v *vector.Vector, r int, buf []any) []any {
	if v.IsNull(r) {
		return append(buf, nil)
	}
	if v.Type != vector.Dynamic {
		return append(buf, v.Value(r))
	}
	switch d := v.Dyn(r).(type) {
	case []any:
		return append(buf, d...)
	case map[string]any:
		for _, k := range SortedKeys(d) {
			if s.BagArray {
				buf = append(buf, []any{k, d[k]})
			} else {
				buf = append(buf, map[string]any{k: d[k]})
			}
		}
		return buf
	default:
		return append(buf, d)
	}
}

// mvCast applies `to typeof(T)`: a cast, not a parse, so a string element
// does not become a number; elements that do not fit are null. Datetimes
// and timespans are read from their text, which is how JSON carries them.
func mvCast(v any, t vector.Type) any {
	if _, isStr := v.(string); isStr && (t == vector.Int || t == vector.Float || t == vector.Bool) {
		return nil
	}
	switch v.(type) {
	case []any, map[string]any:
		if t != vector.Dynamic && t != vector.String {
			return nil
		}
	}
	return ConvertValue(v, t)
}
