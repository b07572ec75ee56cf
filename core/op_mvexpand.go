package core

import (
	"strings"

	"github.com/aplite/aplite/parser"
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
	in, sch  schema
	cols     []mvCol
	idxSlot  int   // output column of with_itemindex, or -1
	limit    int64 // maximum rows per input row; 0 means no limit
	bagArray bool  // kind=array: a bag property becomes [key, value]
}

// mvExpandChargeStep is how many bytes of expanded rows mv-expand builds
// between two charges of the memory budget.
const mvExpandChargeStep = 4 << 20

// mvCol is one expanded column.
type mvCol struct {
	e    *expr
	slot int
	typ  vector.Type
	cast bool // `to typeof(T)` was given
}

func (p *planner) planMvExpand(in schema, op *parser.MvExpandOp) (stage, error) {
	st := &mvExpandStage{in: in, sch: append(schema(nil), in...), idxSlot: -1, bagArray: strings.EqualFold(op.Kind, "array")}
	c := p.compilerFor(in)
	for _, mc := range op.Cols {
		e, err := c.compile(mc.Expr)
		if err != nil {
			return nil, err
		}
		name := mvColumnName(mc, e, st.sch)
		col := mvCol{e: e, typ: e.typ, cast: mc.HasTo}
		if mc.HasTo {
			col.typ = mc.ToType
		}
		if col.typ == vector.Null {
			col.typ = vector.Dynamic
		}
		col.slot = st.sch.index(name)
		if col.slot < 0 {
			col.slot = len(st.sch)
			st.sch = append(st.sch, colDef{name, col.typ})
		} else {
			st.sch[col.slot].Type = col.typ
		}
		st.cols = append(st.cols, col)
	}
	if op.ItemIndex != "" {
		st.idxSlot = st.sch.index(op.ItemIndex)
		if st.idxSlot < 0 {
			st.idxSlot = len(st.sch)
			st.sch = append(st.sch, colDef{op.ItemIndex, vector.Int})
		} else {
			st.sch[st.idxSlot].Type = vector.Int
		}
	}
	if op.Limit != nil {
		n, err := constLong(c, op.Limit, "mv-expand limit")
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, semErr(op.Limit, "mv-expand limit must not be negative, got %d", n)
		}
		st.limit = n
	}
	return st, nil
}

// mvColumnName is the output column of one expanded expression: the
// alias, the column it reads, or the dotted path with '_' for '.'.
func mvColumnName(mc *parser.MvExpandCol, e *expr, s schema) string {
	switch {
	case mc.Name != "":
		return mc.Name
	case e.col >= 0:
		return e.name
	}
	if n, ok := dottedName(mc.Expr); ok {
		return strings.ReplaceAll(n, ".", "_")
	}
	return nextColumnName(s)
}

// constLong compiles a constant integer argument of an operator.
func constLong(c *compiler, e parser.Expr, what string) (int64, error) {
	v, err := c.compile(e)
	if err != nil {
		return 0, err
	}
	if !v.isConst() || v.typ != vector.Int || v.cnst.IsNull(0) {
		return 0, semErr(e, "%s must be a constant long", what)
	}
	return v.cnst.Int(0), nil
}

func (s *mvExpandStage) out() schema { return s.sch }

func (s *mvExpandStage) apply(x *execCtx, b *batch) (*batch, error) {
	vals := make([]*vector.Vector, len(s.cols))
	for i, c := range s.cols {
		v, err := c.e.run(x, b)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	rows := b.liveRows()
	var idx []int32
	outs := make([]*vector.Vector, len(s.cols))
	for i, c := range s.cols {
		outs[i] = vector.New(c.typ, len(rows))
	}
	var item *vector.Vector
	if s.idxSlot >= 0 {
		item = vector.New(vector.Int, len(rows))
	}
	// One input batch can expand into billions of rows (a constant
	// range() of a million values on every row), all built here before
	// anything downstream sees them. The rows built so far are charged to
	// the query's memory budget as they grow, and released when the batch
	// leaves (the operators that keep rows charge for them again), so the
	// batch fails with ErrMemoryExceeded instead of exhausting the
	// server; the same checkpoints honour the query's deadline, which a
	// long loop would otherwise outrun.
	charged := int64(0)
	defer func() { x.budget.charge(-charged) }()
	// Per row: an int32 index and a 16-byte interface per expanded
	// column, doubled for the slack of growing slices. (The heap the
	// collector lets grow on top of that is not counted: the 2 GB budget
	// failed scripts/badinput's expansion at 4.6 GB of RSS.)
	rowBytes := int64(8 + 32*len(s.cols))
	if item != nil {
		rowBytes += 16
	}
	grow := func() error {
		g := int64(len(idx))*rowBytes - charged
		if g < mvExpandChargeStep {
			return nil
		}
		charged += g
		if err := x.budget.charge(g); err != nil {
			return err
		}
		if x.ctx != nil {
			return x.ctx.Err()
		}
		return nil
	}
	elems := make([][]any, len(s.cols))
	for _, r := range rows {
		if err := grow(); err != nil {
			return nil, err
		}
		n := 0
		for i, v := range vals {
			elems[i] = s.elements(v, int(r), elems[i][:0])
			n = max(n, len(elems[i]))
		}
		if s.limit > 0 && int64(n) > s.limit {
			n = int(s.limit)
		}
		for k := 0; k < n; k++ {
			if k&0xffff == 0xffff {
				// A single row with a huge array: check inside it too.
				if err := grow(); err != nil {
					return nil, err
				}
			}
			idx = append(idx, r)
			for i, c := range s.cols {
				var e any
				if k < len(elems[i]) {
					e = elems[i][k]
				}
				if c.cast {
					e = mvCast(e, c.typ)
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
func (s *mvExpandStage) assemble(b *batch, idx []int32, outs []*vector.Vector, item *vector.Vector) *batch {
	nb := &batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.sch)), N: len(idx)}}
	for i, c := range s.cols {
		nb.Cols[c.slot] = outs[i]
	}
	if item != nil {
		nb.Cols[s.idxSlot] = item
	}
	nb.load = func(i int) (*vector.Vector, error) {
		v, err := b.col(i)
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
		for _, k := range sortedKeys(d) {
			if s.bagArray {
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
	return convertValue(v, t)
}
