package exec

import (
	"slices"

	"github.com/aplite/aplite/vector"
)

// topStage is `top N by key`: each worker keeps only its best N rows, so
// memory stays bounded however much is scanned.
type topStage struct {
	In   Schema
	N    int64
	Keys []sortKey
	// SortTake marks a `sort | take N` run as a top: the result reports
	// no order, as the service does after a take.
	SortTake bool
}

// Out implements Stage.
func (s *topStage) Out() Schema { return s.In }

// topSink holds a worker's best rows so far as references into the
// batches they came from: only the sort keys are read while scanning, and
// the other columns are read for the final winners alone (finish), so a
// `top 10 | project a, b` decodes a and b of at most ten parts.
type topSink struct {
	st   *topStage
	best []topRow
	// charged is what the candidates cost the query's memory budget:
	// their references and the batches they keep alive (kept).
	charged   int64
	kept      map[*Batch]keptBatch
	keptBytes int64
	round     uint32
	// shared is the run's threshold, shared with the other workers and
	// the scan (op_topprune.go).
	shared *topShared
}

// topRow is one candidate row: physical row row of batch b, whose sort
// keys are keys (vectors over b's physical rows).
type topRow struct {
	b    *Batch
	keys []*vector.Vector
	row  int32
}

// NewSink implements blockStage.
func (s *topStage) NewSink(*Ctx) (sink, error) { return &topSink{st: s}, nil }

// Full implements sink.
func (t *topSink) Full() bool { return false }

func (t *topSink) consume(x *Ctx, b *Batch) error {
	n := int(t.st.N)
	if n == 0 {
		return nil
	}
	if t.shared == nil {
		t.shared = t.st.shared(x)
	}
	// Keep only rows that can still make the top N before the other keys
	// are evaluated and sorted.
	first, err := prefilterTop(x, b, t.st.Keys[0], n, t.shared)
	if err != nil {
		return err
	}
	if b.Rows() == 0 {
		return nil
	}
	kv := make([]*vector.Vector, len(t.st.Keys))
	kv[0] = first
	for i, k := range t.st.Keys {
		if kv[i] != nil {
			continue
		}
		v, err := k.E.Run(x, b)
		if err != nil {
			return err
		}
		kv[i] = v
	}
	live := b.LiveRows()
	for _, r := range live {
		t.best = append(t.best, topRow{b: b, keys: kv, row: r})
	}
	if len(live) > 0 {
		t.keep(b, kv)
	}
	// Candidates are sorted down to N once they are twice N, not after
	// every batch: a top of a million rows fed in small batches (an
	// mv-expand's pieces) would otherwise sort a million rows per batch.
	// The stable sort of all candidates keeps the answer the same.
	if len(t.best) >= 2*n || len(t.best) >= n && b.Rows() > n {
		t.best = t.st.keepBest(t.best)
		t.st.publishBest(t.shared, t.best)
		t.forget()
	}
	return t.charge(x)
}

// topRowBytes is what the budget is charged per candidate row for its
// reference; the batch it keeps alive is charged once (keep).
func (s *topStage) topRowBytes() int64 { return 32 }

// keptBatch is a batch candidates refer to: what it holds (its columns
// and the sort keys computed over it) and the last round a candidate
// still referred to it.
type keptBatch struct {
	bytes int64
	round uint32
}

// keep records that candidates refer to b: the whole batch stays alive
// for one row of it, whatever its width (a wide string built by extend
// over mv-expand's rows).
func (t *topSink) keep(b *Batch, kv []*vector.Vector) {
	if _, ok := t.kept[b]; ok {
		return
	}
	if t.kept == nil {
		t.kept = map[*Batch]keptBatch{}
	}
	n := batchBytes(b)
	for _, k := range kv {
		if !holds(b.Cols, k) {
			n += colBytes(k)
		}
	}
	t.kept[b] = keptBatch{bytes: n, round: t.round}
	t.keptBytes += n
}

// forget drops the batches no candidate refers to any more.
func (t *topSink) forget() {
	t.round++
	for _, r := range t.best {
		if k, ok := t.kept[r.b]; ok && k.round != t.round {
			k.round = t.round
			t.kept[r.b] = k
		}
	}
	for b, k := range t.kept {
		if k.round != t.round {
			delete(t.kept, b)
			t.keptBytes -= k.bytes
		}
	}
}

// charge bills the budget for what the candidates hold beyond what is
// billed, and gives back what batches no longer referred to held; a top
// of a million wide rows holds them all until the end.
func (t *topSink) charge(x *Ctx) error {
	want := int64(len(t.best))*t.st.topRowBytes() + t.keptBytes
	g := want - t.charged
	t.charged = want
	if g == 0 {
		return nil
	}
	return x.Budget.Charge(g)
}

// keepBest sorts rows (stably: earlier candidates win ties) and keeps the
// first N. It sorts row numbers, not rows: a stable sort of n rows moves
// them O(n log² n) times. slices.SortStableFunc is sort.SliceStable's
// algorithm (both are generated from one template and only ask whether a
// sorts before b), so the answer is the one sort.SliceStable gave even
// where the order is not total (a dynamic key mixing numbers and words).
func (s *topStage) keepBest(rows []topRow) []topRow {
	perm := make([]int32, len(rows))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(i, j int32) int {
		a, c := &rows[i], &rows[j]
		for k, key := range s.Keys {
			if r := compareKeys(a.keys[k], int(a.row), c.keys[k], int(c.row), key.Desc, key.NullsLast); r != 0 {
				return r
			}
		}
		return 0
	})
	best := make([]topRow, min(len(rows), int(s.N)))
	for k := range best {
		best[k] = rows[perm[k]]
	}
	// Back into rows, whose capacity the next batch's candidates reuse.
	copy(rows, best)
	clear(rows[len(best):])
	return rows[:len(best)]
}

// Finish implements blockStage.
func (s *topStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	var rows []topRow
	for _, sk := range sinks {
		rows = append(rows, sk.(*topSink).best...)
	}
	rows = s.keepBest(rows)
	out := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.In)), N: len(rows)}}
	// Columns are gathered from the winners' batches when a later stage
	// (or the result) reads them: a paged column from the pages under
	// the winners alone.
	out.load = func(i int) (*vector.Vector, error) {
		v := vector.New(s.In[i].Type, len(rows))
		for _, r := range rows {
			src, at, err := r.b.cellOf(i, int(r.row))
			if err != nil {
				return nil, err
			}
			if src.Type == v.Type {
				v.AppendFrom(src, at)
			} else {
				v.AppendValue(ConvertValue(src.Value(at), v.Type))
			}
		}
		return v, nil
	}
	return out, nil
}

// takeStage is `take N` / `limit N`: any N rows; the scan stops once a
// worker has them.
type takeStage struct {
	In Schema
	N  int64
}

// Out implements Stage.
func (s *takeStage) Out() Schema { return s.In }

type takeSink struct {
	st    *takeStage
	parts []*Batch
	rows  int64
}

// NewSink implements blockStage.
func (s *takeStage) NewSink(*Ctx) (sink, error) { return &takeSink{st: s}, nil }

// Full implements sink.
func (t *takeSink) Full() bool { return t.rows >= t.st.N }

func (t *takeSink) consume(x *Ctx, b *Batch) error {
	if t.Full() {
		return nil
	}
	need := t.st.N - t.rows
	if int64(b.Rows()) > need {
		b.Sel = b.LiveRows()[:need]
	}
	if err := b.LoadCompact(); err != nil {
		return err
	}
	t.parts = append(t.parts, b)
	t.rows += int64(b.N)
	// A take of a million rows keeps them all; charged as a collect is.
	return x.Budget.Charge(batchBytes(b))
}

// Finish implements blockStage.
func (s *takeStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	var parts []*Batch
	var rows int64
	for _, sk := range sinks {
		for _, b := range sk.(*takeSink).parts {
			if rows >= s.N {
				break
			}
			if rows+int64(b.N) > s.N {
				b.Sel = b.LiveRows()[:s.N-rows]
			}
			parts = append(parts, b)
			rows += int64(b.Rows())
		}
	}
	if len(parts) == 0 {
		return emptyBatch(s.In), nil
	}
	return concat(s.In, parts)
}
