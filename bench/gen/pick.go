package gen

import (
	"math"
	"math/rand/v2"
)

// pickSlots is the resolution of a picker: a weight below 1/pickSlots of
// the total may never be drawn, which the tables here never need.
const pickSlots = 4096

// picker draws an index with probability proportional to its weight in
// one table lookup, since the generator draws several per event.
type picker struct {
	slot [pickSlots]uint16
}

// newPicker spreads the indexes of weights over the slots in proportion
// to their weights (each slot takes the index whose cumulative share
// covers the slot's midpoint).
func newPicker(weights []float64) *picker {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	p := new(picker)
	i, cum := 0, weights[0]
	for s := range p.slot {
		x := (float64(s) + 0.5) / pickSlots * total
		for x > cum && i < len(weights)-1 {
			i++
			cum += weights[i]
		}
		p.slot[s] = uint16(i)
	}
	return p
}

func (p *picker) pick(r *rand.Rand) int { return int(p.slot[r.Uint32()>>(32-12)]) }

// zipfWeights returns n weights 1/(i+1)^s: a few items take most draws.
func zipfWeights(n int, s float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), s)
	}
	return w
}
