package store

import (
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
	return &colSet{n: len(refs), keys: keys, col: func(i int) (*vector.Vector, error) {
		return gatherColumn(parts, keys[i], refs)
	}}, nil
}

func sortedRows(parts []Part, keepFrom int64) ([]rowRef, error) {
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
func gatherColumn(parts []Part, k ColKey, refs []rowRef) (*vector.Vector, error) {
	srcs := make([]*vector.Vector, len(parts))
	for i, p := range parts {
		v, err := p.ReadColumn(k)
		if err != nil {
			return nil, err
		}
		srcs[i] = v
	}
	out := vector.New(k.Type, len(refs))
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
// column as a plain slice without nulls, with typed loops instead of a
// call per row.
func gatherFast(out *vector.Vector, srcs []*vector.Vector, refs []rowRef) bool {
	for _, s := range srcs {
		if s == nil || s.Valid != nil || s.Const || s.Codes != nil {
			return false
		}
	}
	n := len(refs)
	switch out.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		out.Ints = out.Ints[:n]
		for j, r := range refs {
			out.Ints[j] = srcs[r.part].Ints[r.row]
		}
	case vector.Float:
		out.Floats = out.Floats[:n]
		for j, r := range refs {
			out.Floats[j] = srcs[r.part].Floats[r.row]
		}
	case vector.String:
		out.Strs = out.Strs[:n]
		for j, r := range refs {
			out.Strs[j] = srcs[r.part].Strs[r.row]
		}
	case vector.Bool:
		out.Bools = out.Bools[:n]
		for j, r := range refs {
			out.Bools[j] = srcs[r.part].Bools[r.row]
		}
	default:
		return false
	}
	out.Len = n
	return true
}
