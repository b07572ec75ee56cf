package exec

import "github.com/aplite/aplite/vector"

// What a query materialises is charged to its budget in two places, not
// in each of the operators that build columns:
//
//   - the stage driver (feed, RunStages) charges the columns a streaming
//     stage adds to its batch (extend's strings, project's computed
//     columns, parse's fields, a narrowed batch's gathers) for as long as
//     the batch is in flight, and gives the charge back once the batch
//     has been consumed;
//   - the sinks that keep batches (collect under sort and at a pipeline's
//     end, take, top, and so the build side of a join, which is a
//     collected pipeline) charge what they keep, by the same measure.
//
// Operators that hold something else (a summarize's groups and lists,
// mv-expand's rows while it builds them, a join's pairs) charge it
// themselves. One measure, taken from the columns themselves, keeps a
// new operator from being forgotten: whatever it adds to a batch is
// charged without it doing anything.

// dynDepth is how deep colBytes looks into a dynamic value; below it an
// element is counted at dynDeepBytes.
const (
	dynDepth     = 3
	dynDeepBytes = 64
)

// colBytes estimates the heap that v holds: its slices by capacity (a
// column grown by appends has up to twice its length), strings by their
// bytes, dynamic values by what their arrays and bags hold. A dictionary
// is not counted: it is shared with the column it was gathered from, and
// with the storage and its cache.
func colBytes(v *vector.Vector) int64 {
	if v == nil {
		return 0
	}
	if v.Const {
		return 64
	}
	n := int64(cap(v.Valid)*8 + cap(v.Bools) + cap(v.Ints)*8 + cap(v.Floats)*8 + cap(v.Codes)*4 +
		cap(v.SmallCodes) + cap(v.SmallVals)*8 + cap(v.Strs)*16 + cap(v.Dyns)*16)
	if m := v.Mixed; m != nil {
		n += int64(len(m.Floats)*8 + (len(m.Num)+len(m.Real)+len(m.Ord)+len(m.Int))*8)
	}
	for _, s := range v.Strs {
		n += int64(len(s))
	}
	for _, d := range v.Dyns {
		n += dynBytes(d, dynDepth)
	}
	return n
}

// dynBytes is what one dynamic value holds beyond the interface that
// points at it: a boxed number's word, a string's header and bytes, an
// array's elements, a bag's entries and their map buckets.
func dynBytes(d any, depth int) int64 {
	switch x := d.(type) {
	case nil, bool:
		return 0
	case int64, float64:
		return 8
	case string:
		return 16 + int64(len(x))
	case []any:
		if depth == 0 {
			return dynDeepBytes
		}
		n := 24 + 16*int64(cap(x))
		for _, e := range x {
			n += dynBytes(e, depth-1)
		}
		return n
	case map[string]any:
		if depth == 0 {
			return dynDeepBytes
		}
		// A map entry's key and value headers, with the slack of its
		// buckets (about half again).
		n := 48 + 48*int64(len(x))
		for k, e := range x {
			n += int64(len(k)) + dynBytes(e, depth-1)
		}
		return n
	}
	return dynDeepBytes
}

// batchBytes estimates what b's loaded columns hold.
func batchBytes(b *Batch) int64 {
	n := int64(cap(b.Sel)) * 4
	for _, v := range b.Cols {
		n += colBytes(v)
	}
	return n
}

// addedBytes is what out holds that in does not: the columns a stage
// built (a column out shares with in, loaded or passed on, is in's).
func addedBytes(in, out *Batch) int64 {
	if out == nil || out == in {
		return 0
	}
	var n int64
	for i, v := range out.Cols {
		if v == nil || (i < len(in.Cols) && in.Cols[i] == v) || holds(in.Cols, v) {
			continue
		}
		n += colBytes(v)
	}
	if len(out.Sel) > 0 && (len(in.Sel) == 0 || &out.Sel[0] != &in.Sel[0]) {
		n += int64(cap(out.Sel)) * 4
	}
	return n
}

// holds reports whether cols has v.
func holds(cols []*vector.Vector, v *vector.Vector) bool {
	for _, c := range cols {
		if c == v {
			return true
		}
	}
	return false
}
