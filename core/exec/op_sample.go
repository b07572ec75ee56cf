package exec

import (
	"math/rand/v2"
	"sync/atomic"
)

// sampleStage is Axiom's `sample p`: each row is kept with probability p
// (0 < p < 1), independently, so about p of the rows come out. KQL's
// `sample N` returns N rows instead; APL does not, so an integer N ≥ 1
// is an error rather than a silent change of meaning.
//
// It keeps no state between batches and runs in the scan workers; each
// Batch draws from its own generator, derived from the query's seed.
type sampleStage struct {
	In    Schema
	P     float64
	Seed  uint64
	batch atomic.Uint64
}

// Out implements Stage.
func (s *sampleStage) Out() Schema { return s.In }

// Apply implements streamStage.
func (s *sampleStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	rng := rand.New(rand.NewPCG(s.Seed, s.batch.Add(1)))
	var sel []int32
	for _, r := range b.LiveRows() {
		if rng.Float64() < s.P {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return nil, nil
	}
	b.Sel = sel
	return b, nil
}
