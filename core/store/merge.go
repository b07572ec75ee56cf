package store

import (
	"math"
	"slices"

	"github.com/aplite/aplite/vector"
)

// rowRef names one row of one source part.
type rowRef struct {
	t    int64
	part int32
	row  int32
}

var (
	timeKey    = ColKey{TimeField, vector.DateTime}
	sysTimeKey = ColKey{SysTimeField, vector.DateTime}
)

// mergeParts plans one colSet from parts, sorted by _time (stable: ties keep part order, then row order), keeping only rows
// with _time >= keepFrom. It serves flushes (buffered batches into a
// block), compaction (blocks into one) and trim (one block minus old rows).
func mergeParts(parts []Part, keepFrom int64) (*colSet, error) {
	keys := []ColKey{timeKey, sysTimeKey}
	seen := map[ColKey]bool{timeKey: true, sysTimeKey: true}
	for _, p := range parts {
		for _, m := range p.Columns() {
			if !seen[m.Key] {
				seen[m.Key] = true
				keys = append(keys, m.Key)
			}
		}
	}
	refs, err := sortedRows(parts, keepFrom)
	if err != nil {
		return nil, err
	}
	cs := &colSet{n: len(refs), keys: keys, done: recycle}
	cs.col = func(i int) (*vector.Vector, error) { return gatherColumn(parts, keys[i], refs, cs.pause) }
	return cs, nil
}

func sortedRows(parts []Part, keepFrom int64) ([]rowRef, error) {
	if keepFrom == 0 {
		// A trimBefore of 0 is the stored "never trimmed" (FORMAT.md), not a
		// cut at 1970: events before the epoch are kept.
		keepFrom = math.MinInt64
	}
	total := 0
	for _, p := range parts {
		total += p.Rows()
	}
	refs := make([]rowRef, 0, total)
	for pi, p := range parts {
		tv, err := p.ReadColumn(timeKey)
		if err != nil {
			return nil, err
		}
		if tv == nil {
			continue
		}
		for i := 0; i < tv.Len; i++ {
			if t := tv.Int(i); t >= keepFrom {
				refs = append(refs, rowRef{t: t, part: int32(pi), row: int32(i)})
			}
		}
	}
	sorted := slices.IsSortedFunc(refs, func(a, b rowRef) int { return cmpInt(a.t, b.t) })
	if !sorted {
		slices.SortStableFunc(refs, func(a, b rowRef) int { return cmpInt(a.t, b.t) })
	}
	return refs, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// gatherColumn builds column k in refs order, null where a part lacks it.
// pause, if set, is called before each part's column is decoded but the
// first.
func gatherColumn(parts []Part, k ColKey, refs []rowRef, pause func()) (*vector.Vector, error) {
	srcs := make([]*vector.Vector, len(parts))
	for i, p := range parts {
		if pause != nil && i > 0 {
			pause()
		}
		v, err := p.ReadColumn(k)
		if err != nil {
			return nil, err
		}
		srcs[i] = v
	}
	out := newGathered(k.Type, len(refs))
	if k.Type == vector.Null {
		out.Len = len(refs)
		return out, nil
	}
	if gatherFast(out, srcs, refs) {
		return out, nil
	}
	for _, r := range refs {
		if s := srcs[r.part]; s != nil {
			out.AppendFrom(s, int(r.row))
		} else {
			out.AppendNull()
		}
	}
	return out, nil
}

// gatherFast handles the common flush case, every source holding the
// column as a plain slice (nulls as a validity bitmap, missing columns as
// nulls), with typed loops instead of a call per row.
func gatherFast(out *vector.Vector, srcs []*vector.Vector, refs []rowRef) bool {
	nulls := false
	for _, s := range srcs {
		switch {
		case s == nil:
			nulls = true
		case s.Const || s.Codes != nil:
			return false
		case s.Valid != nil:
			nulls = true
		}
	}
	n := len(refs)
	switch out.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		out.Ints = gatherTyped(out.Ints[:n], srcs, refs, func(v *vector.Vector) []int64 { return v.Ints })
	case vector.Float:
		out.Floats = gatherTyped(out.Floats[:n], srcs, refs, func(v *vector.Vector) []float64 { return v.Floats })
	case vector.String:
		out.Strs = gatherTyped(out.Strs[:n], srcs, refs, func(v *vector.Vector) []string { return v.Strs })
	case vector.Bool:
		out.Bools = gatherTyped(out.Bools[:n], srcs, refs, func(v *vector.Vector) []bool { return v.Bools })
	default:
		return false
	}
	out.Len = n
	if nulls {
		out.Valid = gatherValid(srcs, refs)
	}
	return true
}

// gatherTyped fills out (len(refs) values) from the sources' payloads,
// leaving zero values where a source lacks the column.
func gatherTyped[T any](out []T, srcs []*vector.Vector, refs []rowRef, payload func(*vector.Vector) []T) []T {
	vals := make([][]T, len(srcs))
	for i, s := range srcs {
		if s != nil {
			vals[i] = payload(s)
		}
	}
	for j, r := range refs {
		if p := vals[r.part]; p != nil {
			out[j] = p[r.row]
		}
	}
	return out
}

// gatherValid builds the validity of a gathered column: a row is valid
// when its source has the column and holds a value there.
func gatherValid(srcs []*vector.Vector, refs []rowRef) vector.Bitmap {
	out := vector.NewBitmap(len(refs))
	for j, r := range refs {
		if s := srcs[r.part]; s != nil && (s.Valid == nil || s.Valid.Get(int(r.row))) {
			out.Set(j)
		}
	}
	return out
}
