package core

import (
	"math/rand/v2"
	"sync/atomic"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
)

// sampleStage is Axiom's `sample p`: each row is kept with probability p
// (0 < p < 1), independently, so about p of the rows come out. KQL's
// `sample N` returns N rows instead; APL does not, so an integer N ≥ 1
// is an error rather than a silent change of meaning.
//
// It keeps no state between batches and runs in the scan workers; each
// batch draws from its own generator, derived from the query's seed.
type sampleStage struct {
	in    schema
	p     float64
	seed  uint64
	batch atomic.Uint64
}

func (p *planner) planSample(in schema, op *parser.SampleOp) (stage, error) {
	e, err := p.compilerFor(in).compile(op.Fraction)
	if err != nil {
		return nil, err
	}
	if !e.isConst() || !e.typ.IsNumeric() || e.cnst.IsNull(0) {
		return nil, semErr(op.Fraction, "sample takes a constant proportion between 0 and 1, such as sample 0.1")
	}
	f, _ := fn.DynFloat(e.constValue())
	if !(f > 0 && f < 1) {
		return nil, semErr(op.Fraction, "sample takes a proportion between 0 and 1 (exclusive), got %s; use take for a number of rows", valueString(e.constValue()))
	}
	return &sampleStage{in: in, p: f, seed: p.fold.fn.Rand}, nil
}

func (s *sampleStage) out() schema { return s.in }

func (s *sampleStage) apply(x *execCtx, b *batch) (*batch, error) {
	rng := rand.New(rand.NewPCG(s.seed, s.batch.Add(1)))
	var sel []int32
	for _, r := range b.liveRows() {
		if rng.Float64() < s.p {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return nil, nil
	}
	b.Sel = sel
	return b, nil
}
