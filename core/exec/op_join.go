package exec

import (
	"github.com/aplite/aplite/vector"
)

// joinSpec is what every join plan shares: the kind, both input schemas,
// the planned right side, the key conditions and the output columns.
//
// Output columns are the left columns, then the right columns; a right
// column whose name is taken gets a numeric suffix (Key1), as in KQL.
// Semi and anti joins output one side only. lookup drops the right key
// columns, which would repeat the left ones.
type joinSpec struct {
	Kind        joinKind
	Left, Right Schema
	Sch         Schema
	RightPl     *Pipeline
	Keys        []joinKey
	Types       []vector.Type
	RightCols   []int // right columns in the output, in order
	OutL, OutR  bool
}

// joinStage is a blocking hash join for the kinds that need to know,
// after all of the left side, which right rows matched (rightouter,
// fullouter, rightsemi, rightanti). The left input arrives through the
// scan workers' sinks; the right side runs when the left is complete and
// the smaller side is hashed. The other kinds use probeJoinStage.
type joinStage struct {
	joinSpec
	CollectInput *collectStage
}

// joinKey is one equality condition: a left and a right expression.
type joinKey struct {
	L, R     *Expr
	RightCol int // the right column the key reads as is, or -1
}

// Out implements Stage.
func (j *joinSpec) Out() Schema { return j.Sch }

// NewSink implements blockStage.
func (j *joinStage) NewSink(x *Ctx) (sink, error) { return j.CollectInput.NewSink(x) }

// Finish runs the right side, matches the keys and assembles the output.
func (j *joinStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	lb, err := j.CollectInput.Finish(x, sinks)
	if err != nil {
		return nil, err
	}
	rb, err := j.RightPl.Execute(x)
	if err != nil {
		return nil, err
	}
	if err := lb.LoadCompact(); err != nil {
		return nil, err
	}
	if err := rb.LoadCompact(); err != nil {
		return nil, err
	}
	lk, rk := make([]*vector.Vector, len(j.Keys)), make([]*vector.Vector, len(j.Keys))
	for i, k := range j.Keys {
		if lk[i], err = k.L.Run(x, lb); err != nil {
			return nil, err
		}
		if rk[i], err = k.R.Run(x, rb); err != nil {
			return nil, err
		}
	}
	m, err := newMatcher(x, j.Types, lk, rk, lb.N, rb.N, lb.N < rb.N, int64(len(j.Sch))*16+8)
	if err != nil {
		return nil, err
	}
	p, err := m.Plan(j.Kind)
	if err != nil {
		return nil, err
	}
	return j.assemble(lb, rb, p), nil
}

// assemble gathers the output columns from both sides.
func (j *joinSpec) assemble(lb, rb *Batch, p joinPairs) *Batch {
	n := len(p.l)
	if !j.OutL {
		n = len(p.r)
	}
	vecs := make([]*vector.Vector, 0, len(j.Sch))
	if j.OutL {
		for _, v := range lb.Cols {
			vecs = append(vecs, gatherPad(v, p.l))
		}
	}
	if j.OutR {
		for _, c := range j.RightCols {
			vecs = append(vecs, gatherPad(rb.Cols[c], p.r))
		}
	}
	return NewBatch(vecs, n)
}
