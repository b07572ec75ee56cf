package agg

// Shifted moments. Welford's update divides once per row, and a run of
// rows of one group waits on each division before the next. A large batch
// without nulls or a selection instead sums each group's deviations from a
// shift K (the group's mean so far, or its first value in the batch), d
// and d², with additions only, and folds each group's batch moments into
// its accumulator once (Chan et al.'s pairwise update). With K near the
// mean the sums lose no more precision than Welford's.

// shiftedMinRows is the smallest batch the shifted sums serve: below it,
// the fold per group costs more than it saves, and small inputs keep
// Welford's exact sequence of roundings.
const shiftedMinRows = 4096

// shiftedRowsPerGroup is how many rows of the batch each group must have
// on average: the fold divides once per group, which with many groups
// costs what Welford's division per row does, on scattered sums.
const shiftedRowsPerGroup = 16

// momentScratch holds one batch's per-group sums.
type momentScratch struct {
	cnt     []int64
	shift   []float64
	s1, s2  []float64
	touched []uint32
}

func (s *varState) shiftedMoments(vals []float64, groups []uint32) {
	b := &s.batch
	if len(b.cnt) < len(s.n) {
		b.cnt = growInt64(b.cnt, len(s.n))
		b.shift = growFloat64(b.shift, len(s.n))
		b.s1 = growFloat64(b.s1, len(s.n))
		b.s2 = growFloat64(b.s2, len(s.n))
	}
	cnt, shift, s1, s2 := b.cnt, b.shift, b.s1, b.s2
	b.touched = b.touched[:0]
	for k, g := range groups {
		x := vals[k]
		if cnt[g] == 0 {
			b.touched = append(b.touched, g)
			shift[g] = x
			if s.n[g] > 0 {
				shift[g] = s.mean[g]
			}
		}
		d := x - shift[g]
		cnt[g]++
		s1[g] += d
		s2[g] += d * d
	}
	for _, g := range b.touched {
		nb := float64(cnt[g])
		meanB := shift[g] + s1[g]/nb
		m2B := s2[g] - s1[g]*s1[g]/nb
		if m2B < 0 {
			m2B = 0 // rounding of a near-constant group
		}
		if na := float64(s.n[g]); na == 0 {
			s.mean[g], s.m2[g] = meanB, m2B
		} else {
			delta := meanB - s.mean[g]
			tot := na + nb
			s.mean[g] += delta * nb / tot
			s.m2[g] += m2B + delta*delta*na*nb/tot
		}
		s.n[g] += cnt[g]
		cnt[g], s1[g], s2[g] = 0, 0, 0
	}
}
