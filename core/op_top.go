package core

import (
	"slices"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// topStage is `top N by key`: each worker keeps only its best N rows, so
// memory stays bounded however much is scanned.
type topStage struct {
	in   schema
	n    int64
	keys []sortKey
	// sortTake marks a `sort | take N` run as a top: the result reports
	// no order, as the service does after a take.
	sortTake bool
}

func (p *planner) planTop(in schema, op *parser.TopOp) (stage, error) {
	n, err := p.constInt(op.N, "top")
	if err != nil {
		return nil, err
	}
	ks, err := p.planSortKeys(in, []*parser.SortKey{op.Key})
	if err != nil {
		return nil, err
	}
	return &topStage{in: in, n: n, keys: ks}, nil
}

// constInt evaluates a constant non-negative integer operand (take N, top N).
func (p *planner) constInt(e parser.Expr, what string) (int64, error) {
	ce, err := p.compilerFor(nil).compile(e)
	if err != nil {
		return 0, err
	}
	if !ce.isConst() || ce.cnst.IsNull(0) {
		return 0, semErr(e, "the row count of %s must be a constant", what)
	}
	v := convertValue(ce.constValue(), vector.Int)
	n, ok := v.(int64)
	if !ok || n < 0 {
		return 0, semErr(e, "the row count of %s must be a non-negative integer", what)
	}
	return n, nil
}

func (s *topStage) out() schema { return s.in }

// topSink holds a worker's best rows so far as references into the
// batches they came from: only the sort keys are read while scanning, and
// the other columns are read for the final winners alone (finish), so a
// `top 10 | project a, b` decodes a and b of at most ten parts.
type topSink struct {
	st   *topStage
	best []topRow
	// shared is the run's threshold, shared with the other workers and
	// the scan (op_topprune.go).
	shared *topShared
}

// topRow is one candidate row: physical row row of batch b, whose sort
// keys are keys (vectors over b's physical rows).
type topRow struct {
	b    *batch
	keys []*vector.Vector
	row  int32
}

func (s *topStage) newSink(*execCtx) (sink, error) { return &topSink{st: s}, nil }

func (t *topSink) full() bool { return false }

func (t *topSink) consume(x *execCtx, b *batch) error {
	n := int(t.st.n)
	if n == 0 {
		return nil
	}
	if t.shared == nil {
		t.shared = t.st.shared(x)
	}
	// Keep only rows that can still make the top N before the other keys
	// are evaluated and sorted.
	first, err := prefilterTop(x, b, t.st.keys[0], n, t.shared)
	if err != nil {
		return err
	}
	if b.Rows() == 0 {
		return nil
	}
	kv := make([]*vector.Vector, len(t.st.keys))
	kv[0] = first
	for i, k := range t.st.keys {
		if kv[i] != nil {
			continue
		}
		v, err := k.e.run(x, b)
		if err != nil {
			return err
		}
		kv[i] = v
	}
	for _, r := range b.liveRows() {
		t.best = append(t.best, topRow{b: b, keys: kv, row: r})
	}
	t.best = t.st.keepBest(t.best)
	t.st.publishBest(t.shared, t.best)
	return nil
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
		for k, key := range s.keys {
			if r := compareKeys(a.keys[k], int(a.row), c.keys[k], int(c.row), key.desc, key.nullsLast); r != 0 {
				return r
			}
		}
		return 0
	})
	best := make([]topRow, min(len(rows), int(s.n)))
	for k := range best {
		best[k] = rows[perm[k]]
	}
	// Back into rows, whose capacity the next batch's candidates reuse.
	copy(rows, best)
	clear(rows[len(best):])
	return rows[:len(best)]
}

func (s *topStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	var rows []topRow
	for _, sk := range sinks {
		rows = append(rows, sk.(*topSink).best...)
	}
	rows = s.keepBest(rows)
	out := &batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.in)), N: len(rows)}}
	// Columns are gathered from the winners' batches when a later stage
	// (or the result) reads them: a paged column from the pages under
	// the winners alone.
	out.load = func(i int) (*vector.Vector, error) {
		v := vector.New(s.in[i].Type, len(rows))
		for _, r := range rows {
			src, at, err := r.b.cellOf(i, int(r.row))
			if err != nil {
				return nil, err
			}
			if src.Type == v.Type {
				v.AppendFrom(src, at)
			} else {
				v.AppendValue(convertValue(src.Value(at), v.Type))
			}
		}
		return v, nil
	}
	return out, nil
}

// sortThenTake turns `sort by k | take N` into `top N by k`: the same
// rows in the same order (both sorts are stable), but each worker keeps
// only its best N instead of every row being collected and sorted. It
// returns nil when st does not follow a sort.
func sortThenTake(pl *pipeline, st stage) *topStage {
	take, ok := st.(*takeStage)
	if !ok || len(pl.stages) == 0 {
		return nil
	}
	srt, ok := pl.stages[len(pl.stages)-1].(*sortStage)
	if !ok {
		return nil
	}
	return &topStage{in: srt.in, n: take.n, keys: srt.keys, sortTake: true}
}

// takeStage is `take N` / `limit N`: any N rows; the scan stops once a
// worker has them.
type takeStage struct {
	in schema
	n  int64
}

func (p *planner) planTake(in schema, n parser.Expr) (stage, error) {
	v, err := p.constInt(n, "take")
	if err != nil {
		return nil, err
	}
	return &takeStage{in: in, n: v}, nil
}

func (s *takeStage) out() schema { return s.in }

type takeSink struct {
	st    *takeStage
	parts []*batch
	rows  int64
}

func (s *takeStage) newSink(*execCtx) (sink, error) { return &takeSink{st: s}, nil }

func (t *takeSink) full() bool { return t.rows >= t.st.n }

func (t *takeSink) consume(x *execCtx, b *batch) error {
	if t.full() {
		return nil
	}
	need := t.st.n - t.rows
	if int64(b.Rows()) > need {
		b.Sel = b.liveRows()[:need]
	}
	if err := b.compact(); err != nil {
		return err
	}
	t.parts = append(t.parts, b)
	t.rows += int64(b.N)
	return nil
}

func (s *takeStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	var parts []*batch
	var rows int64
	for _, sk := range sinks {
		for _, b := range sk.(*takeSink).parts {
			if rows >= s.n {
				break
			}
			if rows+int64(b.N) > s.n {
				b.Sel = b.liveRows()[:s.n-rows]
			}
			parts = append(parts, b)
			rows += int64(b.Rows())
		}
	}
	if len(parts) == 0 {
		return emptyBatch(s.in), nil
	}
	return concat(s.in, parts)
}
