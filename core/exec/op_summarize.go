package exec

import (
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// aggCall is one planned aggregation of a summarize.
type aggCall struct {
	Spec   *agg.Spec
	Args   []*Expr
	Types  []vector.Type
	Consts []any
	Outs   []vector.Type
	Names  []string
	Ctx    *agg.Context
	// Fname and span are the function's name and place in the query, for
	// errors while running and for the plan node.
	Fname string
	Span  srcpos.Span
	// Conds holds, per bool argument, the kernel that evaluates it as a
	// filter (op_summarize_cond.go); nil entries have none.
	Conds []*condFilter
}

// summarizeStage is hash aggregation: each scan worker groups its rows
// into its own table and aggregation states; finish merges them.
type summarizeStage struct {
	In       Schema
	Sch      Schema
	Keys     []*Expr
	Aggs     []*aggCall
	TimeKey  int   // index of the bin(_time, ...) key, or -1
	BinSize  int64 // its bin width in ns
	KeyNames []string
	// BinCol is the input column of a bin(_time, w) key, or -1: the key is
	// then computed as a bucket index straight from the column, which
	// groups through a dense array instead of a hash table.
	BinCol int
}

// Out implements Stage.
func (s *summarizeStage) Out() Schema { return s.Sch }

// aggSink is one worker's partial aggregation.
type aggSink struct {
	st     *summarizeStage
	Groups *groupTable
	states []agg.State
	gbuf   []uint32
	x      *Ctx
	// charged is what the sink has charged to the query's budget: a flat
	// amount per group, the table's string keys and the states' payload
	// (chargeGroups).
	charged int64
	// conds are the fused conditional runs, per aggregation (nil: none).
	conds []*condRun
	// dense counts count()-only summaries by a long key (group_count.go).
	dense *denseCounter
	// fuse counts count() and countif summaries by a dictionary key
	// (op_summarize_countfuse.go); nil when the aggregations do not suit.
	fuse *fusedCount
}

// NewSink implements blockStage.
func (s *summarizeStage) NewSink(x *Ctx) (sink, error) {
	types := make([]vector.Type, len(s.Keys))
	for i, k := range s.Keys {
		types[i] = k.Typ
		if i == s.TimeKey && s.BinCol >= 0 {
			types[i] = vector.Int
		}
	}
	sk := &aggSink{st: s, Groups: newGroupTable(types), x: x}
	if len(types) == 1 && types[0] == vector.String {
		sk.Groups.intern = x.Intern
	}
	for _, a := range s.Aggs {
		state, err := a.Spec.New(a.Ctx, a.Types, a.Consts)
		if err != nil {
			return nil, CallErrAt(a.Span, a.Fname, err)
		}
		sk.states = append(sk.states, state)
		sk.conds = append(sk.conds, newCondRun(a, state))
	}
	sk.fuse = newFusedCount(s, sk.states, sk.conds)
	return sk, nil
}

// Full implements sink.
func (sk *aggSink) Full() bool { return false }

func (sk *aggSink) keepsNothing() {}

func (sk *aggSink) consume(x *Ctx, b *Batch) error {
	rows := b.Rows()
	if rows == 0 {
		return nil
	}
	keys := make([]*vector.Vector, len(sk.st.Keys))
	for i, k := range sk.st.Keys {
		if i == sk.st.TimeKey && sk.st.BinCol >= 0 {
			v, err := binIndexes(b, sk.st.BinCol, sk.st.BinSize)
			if err != nil {
				return err
			}
			keys[i] = v
			continue
		}
		v, err := k.Run(x, b)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	held := sk.inFlight(b, keys)
	if err := x.Budget.Charge(held); err != nil {
		x.Budget.Charge(-held)
		return err
	}
	defer x.Budget.Charge(-held)
	if sk.fuse != nil {
		ok, err := sk.countFused(b, keys[0])
		if err != nil {
			return err
		}
		if ok {
			return sk.chargeGroups(x)
		}
	}
	if len(keys) == 1 && sk.denseCount(b, keys[0]) {
		return sk.chargeGroups(x)
	}
	if cap(sk.gbuf) < rows {
		sk.gbuf = make([]uint32, rows)
	}
	g := sk.gbuf[:rows]
	sk.Groups.assign(keys, b.Sel, b.N, g)
	if err := sk.chargeGroups(x); err != nil {
		return err
	}
	for i, a := range sk.st.Aggs {
		sk.states[i].Grow(sk.Groups.N)
		if cr := sk.conds[i]; cr != nil {
			done, err := cr.update(x, b, a, g, sk.Groups.N)
			if err != nil {
				return err
			}
			if done {
				continue
			}
		}
		args := make([]*vector.Vector, len(a.Args))
		for j, e := range a.Args {
			v, err := e.Run(x, b)
			if err != nil {
				return err
			}
			args[j] = v
		}
		sk.states[i].Update(args, b.Sel, g)
	}
	return sk.chargeGroups(x)
}

// chargeGroups charges the query's memory budget for what the sink has
// grown by since it last did: once per input batch, so a summarize that
// collects lists, sets or long keys past its share fails with the budget's
// error at the next batch instead of growing until the process is killed.
// It also honours the query's deadline, which one long input (the rows of
// an mv-expand) could otherwise keep it from seeing until the end.
func (sk *aggSink) chargeGroups(x *Ctx) error {
	if g := sk.held() - sk.charged; g > 0 {
		if err := x.Budget.Charge(g); err != nil {
			return err
		}
		sk.charged += g
	}
	if x.Ctx != nil {
		return x.Ctx.Err()
	}
	return nil
}

// held estimates the bytes the sink holds: a flat amount per group for
// the table and each state's slot, plus the string keys and the payload
// of the states that grow with their values (agg.Sized).
func (sk *aggSink) held() int64 {
	return int64(sk.Groups.N)*int64(64+32*len(sk.states)) + sk.Groups.held + sk.sized()
}

// Finish implements blockStage.
func (s *summarizeStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	base, err := mergeSinks(x, sinks)
	if err != nil {
		return nil, err
	}
	n := base.Groups.N
	if len(s.Keys) == 0 {
		n = 1 // summarize without by always answers one row
	}
	vecs := make([]*vector.Vector, 0, len(s.Sch))
	for i, k := range base.Groups.keyCols() {
		if i == s.TimeKey && s.BinCol >= 0 {
			k = binTimes(k, s.BinSize)
			base.Groups.keys[i] = k
		}
		vecs = append(vecs, k)
	}
	// The answer boxes every collected value, about what the states
	// hold: charge it before building.
	if err := x.Budget.Charge(base.sized()); err != nil {
		return nil, err
	}
	for i := range base.states {
		base.states[i].Grow(n)
		vecs = append(vecs, base.states[i].Result(n)...)
	}
	for i, v := range vecs {
		if v.Type != s.Sch[i].Type {
			vecs[i] = castVector(v, s.Sch[i].Type)
		}
	}
	x.Finals.set(s, base)
	return NewBatch(vecs, n), nil
}

// binIndexes computes floor(t / w) for the datetime column col: the
// bucket of bin(_time, w) as a small dense integer.
func binIndexes(b *Batch, col int, w int64) (*vector.Vector, error) {
	tv, err := b.Col(col)
	if err != nil {
		return nil, err
	}
	if tv.Const {
		tv = tv.Materialize()
	}
	out := &vector.Vector{Type: vector.Int, Len: b.N, Valid: tv.Valid, Ints: make([]int64, b.N)}
	for i, t := range tv.Ints[:b.N] {
		out.Ints[i] = floorDiv(t, w)
	}
	return out, nil
}

// binTimes turns bucket indexes back into the datetimes bin() returns.
func binTimes(k *vector.Vector, w int64) *vector.Vector {
	out := &vector.Vector{Type: vector.DateTime, Len: k.Len, Valid: k.Valid, Ints: make([]int64, len(k.Ints))}
	for i, q := range k.Ints {
		out.Ints[i] = q * w
	}
	return out
}

// mergeSinks merges the workers' group tables and states into the
// first. Under a run (x not nil) it charges what the first grows by and
// honours the deadline between workers: merging the tables of a summarize
// with millions of groups is long, and the other workers' tables are
// still held until it ends.
func mergeSinks(x *Ctx, sinks []sink) (*aggSink, error) {
	for _, sk := range sinks {
		sk.(*aggSink).dense.release()
	}
	base := sinks[0].(*aggSink)
	for _, o := range sinks[1:] {
		other := o.(*aggSink)
		mergeGroupStates(base.Groups, base.states, other.Groups, other.states)
		if x != nil {
			if err := base.chargeGroups(x); err != nil {
				return nil, err
			}
		}
	}
	return base, nil
}

// sized is the payload of the states that grow with their values.
func (sk *aggSink) sized() int64 {
	n := int64(0)
	for _, st := range sk.states {
		n += agg.SizeOf(st)
	}
	return n
}

// mergeGroupStates folds a worker's groups and their aggregation states
// into the base worker's: groups are matched by key, states merged per
// matched group.
func mergeGroupStates(bg *groupTable, bs []agg.State, og *groupTable, os []agg.State) {
	if og.N == 0 {
		return
	}
	into := bg.mergeInto(og)
	for i := range bs {
		bs[i].Grow(bg.N)
		os[i].Grow(og.N)
		bs[i].Merge(os[i], into)
	}
}
