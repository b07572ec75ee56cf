package exec

import (
	"cmp"
	"sort"
	"strings"

	"github.com/aplite/aplite/vector"
)

// sortKey is one ordering key. KQL puts nulls first when ascending and
// last when descending unless `nulls first|last` says otherwise.
type sortKey struct {
	E         *Expr
	Desc      bool
	NullsLast bool
}

// sortStage orders all of its input.
type sortStage struct {
	In   Schema
	Keys []sortKey
}

// Out implements Stage.
func (s *sortStage) Out() Schema { return s.In }

// NewSink implements blockStage.
func (s *sortStage) NewSink(*Ctx) (sink, error) { return &collectSink{}, nil }

// Finish implements blockStage.
func (s *sortStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	all, err := (&collectStage{Sch: s.In}).Finish(x, sinks)
	if err != nil {
		return nil, err
	}
	out, err := sortBatch(x, all, s.Keys, -1)
	if err != nil {
		return nil, err
	}
	// The sorted copy, while the rows it was gathered from are alive.
	return out, x.Budget.Charge(batchBytes(out))
}

// sortBatch orders a dense batch by keys and keeps the first limit rows
// (all when limit < 0). The sort is stable.
func sortBatch(x *Ctx, b *Batch, keys []sortKey, limit int) (*Batch, error) {
	if err := b.LoadCompact(); err != nil {
		return nil, err
	}
	kv := make([]*vector.Vector, len(keys))
	for i, k := range keys {
		v, err := k.E.Run(x, b)
		if err != nil {
			return nil, err
		}
		kv[i] = v
	}
	perm := make([]int32, b.N)
	for i := range perm {
		perm[i] = int32(i)
	}
	less := func(a, c int32) bool {
		for i, k := range keys {
			if r := compareRows(kv[i], int(a), int(c), k.Desc, k.NullsLast); r != 0 {
				return r < 0
			}
		}
		return false
	}
	sort.SliceStable(perm, func(i, j int) bool { return less(perm[i], perm[j]) })
	if limit >= 0 && limit < len(perm) {
		perm = perm[:limit]
	}
	vecs := make([]*vector.Vector, len(b.Cols))
	for i, v := range b.Cols {
		vecs[i] = v.Gather(perm)
	}
	return NewBatch(vecs, len(perm)), nil
}

// compareRows orders rows a and c of v for a sort key, nulls placed as asked.
func compareRows(v *vector.Vector, a, c int, desc, nullsLast bool) int {
	return compareKeys(v, a, v, c, desc, nullsLast)
}

// compareKeys orders row a of v against row c of w (two vectors of one
// sort key, from different batches), nulls placed as asked.
func compareKeys(v *vector.Vector, a int, w *vector.Vector, c int, desc, nullsLast bool) int {
	an, cn := v.IsNull(a), w.IsNull(c)
	switch {
	case an && cn:
		return 0
	case an:
		if nullsLast {
			return 1
		}
		return -1
	case cn:
		if nullsLast {
			return -1
		}
		return 1
	}
	var r int
	switch {
	case v.Type != w.Type:
		r = orderAny(v.Value(a), w.Value(c))
	case v.Type == vector.Int, v.Type == vector.DateTime, v.Type == vector.TimeSpan:
		r = cmp.Compare(v.Int(a), w.Int(c))
	case v.Type == vector.Float:
		r = cmp.Compare(v.Float(a), w.Float(c))
	case v.Type == vector.String:
		r = strings.Compare(v.Str(a), w.Str(c))
	case v.Type == vector.Bool:
		r = cmpBool(v.Bool(a), w.Bool(c))
	default:
		var ok bool
		if r, ok = mixedOrder(v, a, w, c); !ok {
			r = orderAny(v.Value(a), w.Value(c))
		}
	}
	if desc {
		return -r
	}
	return r
}
