package exec

import (
	"slices"

	"github.com/aplite/aplite/vector"
)

// probeJoinStage is the streaming hash join for the kinds whose output is
// decided one left row at a time: inner (the default), innerunique,
// leftouter, leftsemi, leftanti, and lookup. The right side runs once,
// on first use, and is hashed; then every scan worker probes its own left
// batches, so the left side is never collected and its columns are only
// gathered when a later operator reads them. Only the right side is held
// in memory, which suits the documented use: a large dataset enriched
// from a smaller one.
type probeJoinStage struct {
	joinSpec
}

// joinBuild is the hashed right side.
type joinBuild struct {
	rb        *Batch
	table     *keyTable
	off, rows []int32 // right rows per key id (see csr)
}

// prepare runs and hashes the right side, once per run.
func (j *probeJoinStage) prepare(x *Ctx) (*joinBuild, error) {
	v, err := x.runs.do(j, func() (any, error) { return j.hashRight(x) })
	if err != nil {
		return nil, err
	}
	return v.(*joinBuild), nil
}

func (j *probeJoinStage) hashRight(x *Ctx) (*joinBuild, error) {
	rb, err := j.RightPl.Execute(x)
	if err != nil {
		return nil, err
	}
	if err := rb.LoadCompact(); err != nil {
		return nil, err
	}
	keys := make([]*vector.Vector, len(j.Keys))
	for i, k := range j.Keys {
		if keys[i], err = k.R.Run(x, rb); err != nil {
			return nil, err
		}
	}
	t := newKeyTable(j.Types)
	ids := make([]int32, rb.N)
	t.ids(keys, rb.N, true, ids)
	if err := x.Budget.Charge(int64(rb.N) * 32); err != nil {
		return nil, err
	}
	off, rows := csr(ids, t.n)
	return &joinBuild{rb: rb, table: t, off: off, rows: rows}, nil
}

// Apply implements streamStage.
func (j *probeJoinStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	jb, err := j.prepare(x)
	if err != nil {
		return nil, err
	}
	live := b.LiveRows()
	keys := make([]*vector.Vector, len(j.Keys))
	for i, k := range j.Keys {
		v, err := k.L.Run(x, b)
		if err != nil {
			return nil, err
		}
		if b.Sel != nil {
			v = v.Gather(b.Sel)
		}
		keys[i] = v
	}
	ids := make([]int32, len(live))
	jb.table.ids(keys, len(live), false, ids)
	switch j.Kind {
	case joinLeftSemi, joinLeftAnti:
		var sel []int32
		for k, g := range ids {
			if (g >= 0) == (j.Kind == joinLeftSemi) {
				sel = append(sel, live[k])
			}
		}
		if len(sel) == 0 {
			return nil, nil
		}
		b.Sel = sel
		return b, nil
	}
	lidx, ridx, err := j.pairs(x, jb, live, ids)
	if err != nil || len(lidx) == 0 {
		return nil, err
	}
	return j.output(jb, b, live, lidx, ridx), nil
}

// pairs lists the output rows: (physical left row, right row or -1). A
// many-to-many join can make billions from one batch, so it bills the
// memory budget and checks the deadline as it goes, not at the end.
func (j *probeJoinStage) pairs(x *Ctx, jb *joinBuild, live, ids []int32) (lidx, ridx []int32, err error) {
	lidx = make([]int32, 0, len(live))
	ridx = make([]int32, 0, len(live))
	rowBytes := int64(8 + 16*len(j.RightCols))
	billed := 0
	for k, g := range ids {
		if len(lidx)-billed >= pairBudgetStep {
			if err := x.Ctx.Err(); err != nil {
				return nil, nil, err
			}
			if err := x.Budget.Charge(int64(len(lidx)-billed) * rowBytes); err != nil {
				return nil, nil, err
			}
			billed = len(lidx)
		}
		if g < 0 {
			if j.Kind == joinLeftOuter {
				lidx, ridx = append(lidx, live[k]), append(ridx, -1)
			}
			continue
		}
		rs := jb.rows[jb.off[g]:jb.off[g+1]]
		if j.Kind == joinInnerUnique {
			rs = rs[:1]
		}
		for _, r := range rs {
			lidx, ridx = append(lidx, live[k]), append(ridx, r)
		}
	}
	if err := x.Budget.Charge(int64(len(lidx)-billed) * rowBytes); err != nil {
		return nil, nil, err
	}
	return lidx, ridx, nil
}

// output builds the joined batch. When every live left row comes out
// exactly once (a lookup of unique keys), the left batch is kept as it is,
// selection and lazy columns included, and only the right columns are
// added; otherwise the left columns are gathered on first use.
func (j *probeJoinStage) output(jb *joinBuild, b *Batch, live, lidx, ridx []int32) *Batch {
	if slices.Equal(lidx, live) {
		phys := make([]int32, b.N)
		for i := range phys {
			phys[i] = -1
		}
		for k, l := range lidx {
			phys[l] = ridx[k]
		}
		right := make([]*vector.Vector, len(j.RightCols))
		for i, c := range j.RightCols {
			right[i] = gatherPad(jb.rb.Cols[c], phys)
		}
		return withColumns(b, right...)
	}
	nb := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(j.Sch)), N: len(lidx)}}
	nl := len(j.Left)
	for i, c := range j.RightCols {
		nb.Cols[nl+i] = gatherPad(jb.rb.Cols[c], ridx)
	}
	nb.load = func(i int) (*vector.Vector, error) {
		v, err := b.Col(i)
		if err != nil {
			return nil, err
		}
		return v.Gather(lidx), nil
	}
	return nb
}
