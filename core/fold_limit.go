package core

import (
	"errors"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// A constant expression is folded into the plan only while its value is
// small. The plan is encoded for the planner's cache key and for the
// fragments sent to other nodes, and neither can be cancelled or charged
// to the query's memory budget: range(1, 1000000) folded made a plan of
// a million elements whose key took hundreds of MB and a minute and a
// half, past the query's deadline. A large value is left as the
// expression, which a run evaluates once per batch (its arguments are
// constant) under the query's budget and deadline, to the same answer.
const (
	// foldMaxCharge is what evaluating a constant may charge at plan
	// time: range() and strrep() charge in steps of 1 MB, so any charge
	// at all stops the fold (nested strrep would otherwise build its
	// gigabytes here, with no budget to stop it).
	foldMaxCharge = 256 << 10
	// foldMaxElems bounds the elements (array items, bag keys, nested
	// ones counted too) of a folded dynamic value.
	foldMaxElems = 4096
	// foldMaxBytes bounds the bytes of a folded string, or of the strings
	// inside a folded dynamic value.
	foldMaxBytes = 16 << 10
)

// errFoldTooBig stops the evaluation of a constant that grows past
// foldMaxCharge.
var errFoldTooBig = errors.New("constant too large to fold")

// evalFoldable evaluates a constant expression for fold, reporting
// ok false, without an error, when its value is too large to fold.
func evalFoldable(fc *fn.Context, node *plan.Expr) (v *vector.Vector, ok bool, err error) {
	var lim fn.Context
	if fc != nil {
		lim = *fc
	}
	charged := int64(0)
	lim.Charge = func(n int64) error {
		if charged += n; charged > foldMaxCharge {
			return errFoldTooBig
		}
		return nil
	}
	v, err = exec.EvalConst(&lim, node)
	if errors.Is(err, errFoldTooBig) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if v.Len > 0 && !v.IsNull(0) {
		elems, bytes := 0, 0
		if !smallValue(v.Value(0), &elems, &bytes) {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// smallValue reports whether x stays within foldMaxElems elements and
// foldMaxBytes bytes of strings, counting into elems and bytes; it stops
// at the first element past either bound.
func smallValue(x any, elems, bytes *int) bool {
	switch v := x.(type) {
	case string:
		*bytes += len(v)
	case []any:
		*elems += len(v)
		if *elems > foldMaxElems {
			return false
		}
		for _, e := range v {
			if !smallValue(e, elems, bytes) {
				return false
			}
		}
	case map[string]any:
		*elems += len(v)
		if *elems > foldMaxElems {
			return false
		}
		for k, e := range v {
			*bytes += len(k)
			if !smallValue(e, elems, bytes) {
				return false
			}
		}
	}
	return *elems <= foldMaxElems && *bytes <= foldMaxBytes
}
