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

// mvExpandChunk is the most rows one output batch of ApplyEach holds. One
// input batch can expand into millions of rows (a range() of a million on
// every row); handed on in pieces of this size, the columns later stages
// compute over them (an extend's strings, a gather of the columns not
// expanded) are built for a chunk at a time and dropped once the sink has
// taken it, so a query's memory follows what it keeps, not what it
// expands. 16384 rows keep the per-batch overhead of the stages below
// small while a chunk of eight wide columns stays near a megabyte.
const mvExpandChunk = 16384

// mvCol is one expanded column.
type mvCol struct {
	E    *Expr
	Slot int
	Typ  vector.Type
	Cast bool // `to typeof(T)` was given
}

// Out implements Stage.
func (s *mvExpandStage) Out() Schema { return s.Sch }

// Apply implements streamStage: the whole expansion as one batch, for a
// caller that cannot take it in pieces.
func (s *mvExpandStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	var out *Batch
	err := s.expand(x, b, 0, func(nb *Batch) error { out = nb; return nil })
	return out, err
}

// ApplyEach implements fanOutStage: the expansion in batches of at most
// mvExpandChunk rows, each handed to emit before the next is built.
func (s *mvExpandStage) ApplyEach(x *Ctx, b *Batch, emit func(*Batch) error) error {
	return s.expand(x, b, mvExpandChunk, emit)
}

// expand builds the expansion of b and hands it to emit in batches of at
// most chunk rows (0: one batch). A batch with no rows is not emitted.
func (s *mvExpandStage) expand(x *Ctx, b *Batch, chunk int, emit func(*Batch) error) error {
	vals := make([]*vector.Vector, len(s.Cols))
	for i, c := range s.Cols {
		v, err := c.E.Run(x, b)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	rows := b.LiveRows()
	e := s.newExpansion(x, b, chunk, len(rows))
	defer e.release()
	elems := make([][]any, len(s.Cols))
	for _, r := range rows {
		if err := e.grow(); err != nil {
			return err
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
				if err := e.grow(); err != nil {
					return err
				}
			}
			if err := e.add(r, k, elems, emit); err != nil {
				return err
			}
		}
	}
	return e.flush(emit)
}

// expansion is the output batch an expand is building.
type expansion struct {
	s     *mvExpandStage
	x     *Ctx
	b     *Batch
	chunk int // rows per emitted batch; 0 means one batch
	size  int // capacity hint for a new batch's columns
	idx   []int32
	outs  []*vector.Vector
	item  *vector.Vector
	// charged is what the rows built so far cost the query's memory
	// budget. A whole expansion built at once (Apply) can run to billions
	// of rows before anything downstream sees them, so they are charged as
	// they grow and released when the batch leaves (operators that keep
	// rows charge for them again): the query fails with ErrMemoryExceeded
	// instead of exhausting the server. Per row: an int32 index and a
	// 16-byte interface per expanded column, doubled for the slack of
	// growing slices. (The heap the collector lets grow on top of that is
	// not counted: the 2 GB budget failed scripts/badinput's expansion at
	// 4.6 GB of RSS.)
	charged  int64
	rowBytes int64
}

func (s *mvExpandStage) newExpansion(x *Ctx, b *Batch, chunk, rows int) *expansion {
	e := &expansion{s: s, x: x, b: b, chunk: chunk, size: rows, rowBytes: int64(8 + 32*len(s.Cols))}
	if chunk > 0 {
		e.size = min(rows, chunk)
	}
	if s.IdxSlot >= 0 {
		e.rowBytes += 16
	}
	e.reset()
	return e
}

// reset starts a new output batch.
func (e *expansion) reset() {
	e.idx = nil
	e.outs = make([]*vector.Vector, len(e.s.Cols))
	for i, c := range e.s.Cols {
		e.outs[i] = vector.New(c.Typ, e.size)
	}
	e.item = nil
	if e.s.IdxSlot >= 0 {
		e.item = vector.New(vector.Int, e.size)
	}
}

// add appends element k of input row r, handing on a full chunk.
func (e *expansion) add(r int32, k int, elems [][]any, emit func(*Batch) error) error {
	e.idx = append(e.idx, r)
	for i, c := range e.s.Cols {
		var v any
		if k < len(elems[i]) {
			v = elems[i][k]
		}
		if c.Cast {
			v = mvCast(v, c.Typ)
		}
		e.outs[i].AppendValue(v)
	}
	if e.item != nil {
		e.item.AppendInt(int64(k))
	}
	if e.chunk > 0 && len(e.idx) >= e.chunk {
		return e.flush(emit)
	}
	return nil
}

// flush hands on the rows built so far, if any, and starts a new batch.
// Between chunks it honours the query's deadline, which a long expansion
// would otherwise outrun.
func (e *expansion) flush(emit func(*Batch) error) error {
	if len(e.idx) == 0 {
		return nil
	}
	nb := e.s.assemble(e.b, e.idx, e.outs, e.item)
	e.reset()
	if err := emit(nb); err != nil {
		return err
	}
	e.release()
	if e.x.Ctx != nil {
		return e.x.Ctx.Err()
	}
	return nil
}

// grow charges the budget for the rows built since the last charge, in
// steps of mvExpandChargeStep, and checks the deadline at each step.
func (e *expansion) grow() error {
	g := int64(len(e.idx))*e.rowBytes - e.charged
	if g < mvExpandChargeStep {
		return nil
	}
	e.charged += g
	if err := e.x.Budget.Charge(g); err != nil {
		return err
	}
	if e.x.Ctx != nil {
		return e.x.Ctx.Err()
	}
	return nil
}

// release returns what the built rows were charged.
func (e *expansion) release() {
	if e.charged != 0 {
		e.x.Budget.Charge(-e.charged)
		e.charged = 0
	}
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
