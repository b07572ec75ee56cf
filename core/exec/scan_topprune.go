package exec

import (
	"cmp"
	"slices"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// The scan's side of top-N pruning (op_topprune.go): which parts a top's
// statistics bound, the order they are read in, and the test that skips
// a part the threshold has passed.

// topPrune lets a scan skip parts for a top directly above it (only
// filters between): the top's first key is the scan's column col.
type topPrune struct {
	st  *topStage
	col string
	typ vector.Type
	// colIdx is the key's column in the scan's schema, whose zones
	// narrow the morsels (scan_topzones.go).
	colIdx int
	// unfiltered says that the top sees every row the scan emits (no
	// where between them), so the zones may also seed the threshold.
	unfiltered bool
}

// attachTopPrune gives pl's scan the top that follows it, when the top's
// first key is a rankable column the scan reads as it is stored.
func attachTopPrune(pl *Pipeline) {
	scan, ok := pl.Src.(*ScanSource)
	if !ok {
		return
	}
	unfiltered := true
	for _, st := range pl.Stages {
		switch st := st.(type) {
		case *whereStage:
			unfiltered = false
			continue
		case *topStage:
			k := st.Keys[0].E
			if k.Col < 0 || k.Col >= len(scan.Sch) || scan.Sch[k.Col].Name != k.Name || !rankable(k.Typ) ||
				k.Name == scan.WithSource {
				return
			}
			scan.top = &topPrune{st: st, col: k.Name, typ: k.Typ, colIdx: k.Col, unfiltered: unfiltered}
		}
		return
	}
}

// partBound is the best rank a row of p can have for the key, from the
// column statistics; ok is false when they cannot bound it. never is true
// when no row of p can reach any threshold (every key null, nulls last).
func (tp *topPrune) partBound(p store.Part) (rank uint64, never, ok bool) {
	k := tp.st.Keys[0]
	var metas []store.ColumnMeta
	for _, m := range p.Columns() {
		if m.Key.Name == tp.col {
			metas = append(metas, m)
		}
	}
	mayNull := len(metas) != 1 || metas[0].NullCount > 0
	if mayNull && !k.NullsLast {
		return 0, false, false
	}
	if tp.typ == vector.Float && !k.Desc {
		// NaN sorts first ascending, and the statistics leave NaN out.
		return 0, false, false
	}
	found := false
	for _, m := range metas {
		if m.NullCount >= p.Rows() {
			continue
		}
		v := m.Max
		if !k.Desc {
			v = m.Min
		}
		var r uint64
		switch x := v.(type) {
		case int64:
			switch {
			case m.Key.Type == tp.typ && tp.typ != vector.Float:
				r = intRank(x, k.Desc)
			case m.Key.Type == vector.Int && tp.typ == vector.Float:
				r = floatRank(float64(x), k.Desc)
			default:
				return 0, false, false
			}
		case float64:
			if m.Key.Type != vector.Float || tp.typ != vector.Float {
				return 0, false, false
			}
			r = floatRank(x, k.Desc)
		default:
			return 0, false, false
		}
		if !found || r > rank {
			rank = r
		}
		found = true
	}
	if !found {
		return 0, true, true
	}
	return rank, false, true
}

// beaten reports that no row of the part can reach the run's threshold,
// so its morsels need not be decoded.
func (pl *partLoader) beaten(sh *topShared) bool {
	if sh == nil || !pl.topBounded {
		return false
	}
	thr, ok := sh.load()
	return ok && (pl.topNever || pl.topRank < thr)
}

// topOrder lays out the parts' morsels best bound first, so the threshold
// is tight before the parts that can be skipped are reached: parts the
// statistics cannot bound (they must be read anyway), then the others by
// their bound. Parts are taken workers at a time, interleaved within each
// group, so the workers still decode different parts at once.
func topOrder(perPart [][]scanTask, workers int) []scanTask {
	slices.SortStableFunc(perPart, func(a, b []scanTask) int {
		pa, pb := a[0].part, b[0].part
		switch {
		case pa.topBounded != pb.topBounded:
			if !pa.topBounded {
				return -1
			}
			return 1
		case pa.topNever != pb.topNever:
			if pb.topNever {
				return -1
			}
			return 1
		}
		return cmp.Compare(pb.topRank, pa.topRank)
	})
	var tasks []scanTask
	for len(perPart) > 0 {
		n := min(workers, len(perPart))
		tasks = append(tasks, interleave(perPart[:n])...)
		perPart = perPart[n:]
	}
	return tasks
}
