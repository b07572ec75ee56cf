package agg

import (
	"fmt"
	"sort"
)

// spaceSaving counts the most frequent keys of a stream in bounded memory
// (Metwally, Agrawal, El Abbadi: "Efficient computation of frequent and
// top-k elements in data streams", 2005). While it has seen at most
// `capacity` distinct keys every count is exact. After that a new key
// evicts the key with the smallest count c and starts at c+1 with error
// c, so each count overestimates the truth by at most its error, and at
// most N/capacity for N rows. Summaries merge as in Agarwal et al.,
// "Mergeable summaries" (2012): a key missing from a full summary is
// credited with that summary's minimum, as both count and error.
type spaceSaving[K comparable] struct {
	capacity int
	idx      map[K]int32
	keys     []K
	counts   []int64
	errs     []int64
	heap     []int32 // entry ids, min-heap by count, built once full
	pos      []int32 // entry id -> heap position
}

func newSpaceSaving[K comparable](capacity int) *spaceSaving[K] {
	return &spaceSaving[K]{capacity: capacity, idx: map[K]int32{}}
}

func (s *spaceSaving[K]) full() bool { return len(s.keys) >= s.capacity }

// add counts c more occurrences of key with extra error e.
func (s *spaceSaving[K]) add(key K, c, e int64) {
	if i, ok := s.idx[key]; ok {
		s.counts[i] += c
		s.errs[i] += e
		if s.heap != nil {
			s.down(int(s.pos[i]))
		}
		return
	}
	if !s.full() {
		s.idx[key] = int32(len(s.keys))
		s.keys = append(s.keys, key)
		s.counts = append(s.counts, c)
		s.errs = append(s.errs, e)
		return
	}
	if s.heap == nil {
		s.buildHeap()
	}
	i := s.heap[0]
	delete(s.idx, s.keys[i])
	min := s.counts[i]
	s.idx[key] = i
	s.keys[i] = key
	s.errs[i] = min + e
	s.counts[i] = min + c
	s.down(0)
}

// minCount is what a key absent from a full summary may have had.
func (s *spaceSaving[K]) minCount() int64 {
	if !s.full() {
		return 0
	}
	m := s.counts[0]
	for _, c := range s.counts {
		m = min(m, c)
	}
	return m
}

func (s *spaceSaving[K]) buildHeap() {
	s.heap = make([]int32, len(s.keys))
	s.pos = make([]int32, len(s.keys))
	for i := range s.heap {
		s.heap[i], s.pos[i] = int32(i), int32(i)
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
}

func (s *spaceSaving[K]) down(i int) {
	h := s.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && s.counts[h[r]] < s.counts[h[l]] {
			m = r
		}
		if s.counts[h[i]] <= s.counts[h[m]] {
			return
		}
		h[i], h[m] = h[m], h[i]
		s.pos[h[i]], s.pos[h[m]] = int32(i), int32(m)
		i = m
	}
}

// merge folds o into s.
func (s *spaceSaving[K]) merge(o *spaceSaving[K]) {
	sMin, oMin := s.minCount(), o.minCount()
	type entry struct {
		key       K
		count, er int64
	}
	all := make([]entry, 0, len(s.keys)+len(o.keys))
	for i, k := range s.keys {
		c, e := s.counts[i], s.errs[i]
		if j, ok := o.idx[k]; ok {
			c, e = c+o.counts[j], e+o.errs[j]
		} else {
			c, e = c+oMin, e+oMin
		}
		all = append(all, entry{k, c, e})
	}
	for j, k := range o.keys {
		if _, ok := s.idx[k]; !ok {
			all = append(all, entry{k, o.counts[j] + sMin, o.errs[j] + sMin})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].count > all[b].count })
	if len(all) > s.capacity {
		all = all[:s.capacity]
	}
	*s = spaceSaving[K]{capacity: s.capacity, idx: make(map[K]int32, len(all))}
	for _, en := range all {
		s.add(en.key, en.count, en.er)
	}
}

// top returns the indexes of the k entries with the highest counts; ties
// are broken by the keys' printed form so results do not depend on the
// order rows or merges arrived in.
func (s *spaceSaving[K]) top(k int) []int {
	ids := make([]int, len(s.keys))
	names := make([]string, len(s.keys))
	for i := range ids {
		ids[i] = i
		names[i] = fmt.Sprint(s.keys[i])
	}
	sort.Slice(ids, func(a, b int) bool {
		ca, cb := s.counts[ids[a]], s.counts[ids[b]]
		if ca != cb {
			return ca > cb
		}
		return names[ids[a]] < names[ids[b]]
	})
	if len(ids) > k {
		ids = ids[:k]
	}
	return ids
}
