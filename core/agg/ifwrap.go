package agg

import (
	"errors"

	"github.com/aplite/aplite/vector"
)

// withIf derives the conditional variant of base (countif, sumif,
// percentileif, ...): the same aggregation over only the rows where an
// extra bool argument is true. predPos is the predicate's position in the
// variant's argument list, or -1 for the last argument. A null predicate
// counts as false, as where does.
func withIf(base *Spec, name, apiName string, predPos int, doc string) *Spec {
	maxArgs := base.MaxArgs
	if maxArgs >= 0 {
		maxArgs++
	}
	var consts []int
	for _, c := range base.ConstArgs {
		if predPos >= 0 && c >= predPos {
			c++
		}
		consts = append(consts, c)
	}
	pos := func(n int) int {
		if predPos < 0 {
			return n - 1
		}
		return predPos
	}
	return &Spec{
		Name:      name,
		APIName:   apiName,
		MinArgs:   base.MinArgs + 1,
		MaxArgs:   maxArgs,
		ConstArgs: consts,
		Result: func(args []vector.Type) ([]vector.Type, error) {
			p := pos(len(args))
			if p >= len(args) {
				return nil, errors.New("missing the predicate argument")
			}
			if err := wantBool(p, args[p]); err != nil {
				return nil, err
			}
			return base.Result(without(args, p))
		},
		New: func(ctx *Context, argTypes []vector.Type, cs []any) (State, error) {
			p := pos(len(argTypes))
			if p >= len(argTypes) {
				return nil, errors.New("missing the predicate argument")
			}
			if err := wantBool(p, argTypes[p]); err != nil {
				return nil, err
			}
			var rest []any
			if cs != nil {
				rest = without(cs, p)
			} else {
				rest = make([]any, len(argTypes)-1)
			}
			inner, err := base.New(ctx, without(argTypes, p), rest)
			if err != nil {
				return nil, err
			}
			return &ifState{inner: inner, pred: p}, nil
		},
		Doc: doc,
	}
}

// without returns a copy of s without element i.
func without[T any](s []T, i int) []T {
	out := make([]T, 0, len(s))
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}

// ifState filters rows by the predicate into a selection of its own and
// hands them to the unconditional state. The buffers are reused across
// batches so the filter allocates nothing in steady state.
type ifState struct {
	inner State
	pred  int
	rest  []*vector.Vector
	sel   []int32
	grp   []uint32
}

func (s *ifState) Grow(n int) { s.inner.Grow(n) }

func (s *ifState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	pred := args[s.pred]
	s.rest = append(append(s.rest[:0], args[:s.pred]...), args[s.pred+1:]...)
	if pred.Const {
		if constValid(pred) && pred.Value(0) == true {
			s.inner.Update(s.rest, sel, groups)
		}
		return
	}
	s.sel, s.grp = filterTrue(pred, sel, groups, s.sel[:0], s.grp[:0])
	if len(s.grp) > 0 {
		s.inner.Update(s.rest, s.sel, s.grp)
	}
}

// filterTrue appends to outSel/outGrp the rows whose predicate is true.
func filterTrue(pred *vector.Vector, sel []int32, groups []uint32, outSel []int32, outGrp []uint32) ([]int32, []uint32) {
	switch pred.Type {
	case vector.Bool:
		bools, valid := pred.Bools, pred.Valid
		if sel == nil {
			bools = bools[:len(groups)]
			for k, g := range groups {
				if bools[k] && validAt(valid, k) {
					outSel = append(outSel, int32(k))
					outGrp = append(outGrp, g)
				}
			}
			return outSel, outGrp
		}
		for k, g := range groups {
			r := int(sel[k])
			if bools[r] && validAt(valid, r) {
				outSel = append(outSel, int32(r))
				outGrp = append(outGrp, g)
			}
		}
	case vector.Dynamic:
		for k, g := range groups {
			r := physRow(sel, k)
			if b, ok := pred.Dyns[r].(bool); ok && b && validAt(pred.Valid, r) {
				outSel = append(outSel, int32(r))
				outGrp = append(outGrp, g)
			}
		}
	}
	return outSel, outGrp
}

// Conditional is the state of a conditional variant (countif, sumif, ...):
// a caller that evaluates the predicate itself, with a filter kernel
// straight into a selection, hands over only the rows where it holds, and
// no bool column is built.
type Conditional interface {
	State
	// PredicateArg is the position of the predicate among the arguments.
	PredicateArg() int
	// UpdateTrue is Update over rows whose predicate is known to be true;
	// args are the arguments without the predicate, and sel is not nil.
	UpdateTrue(args []*vector.Vector, sel []int32, groups []uint32)
	// Counter is the state that counts the rows, for countif; nil when the
	// rows are aggregated otherwise.
	Counter() CountAdder
}

// PredicateArg implements Conditional.
func (s *ifState) PredicateArg() int { return s.pred }

// Counter returns the inner state when the variant only counts rows
// (countif), so a caller may hand over whole counts; nil otherwise.
func (s *ifState) Counter() CountAdder {
	c, _ := s.inner.(CountAdder)
	return c
}

// UpdateTrue implements Conditional.
func (s *ifState) UpdateTrue(args []*vector.Vector, sel []int32, groups []uint32) {
	if len(groups) > 0 {
		s.inner.Update(args, sel, groups)
	}
}

func (s *ifState) Merge(other State, into []uint32) {
	s.inner.Merge(other.(*ifState).inner, into)
}

func (s *ifState) Result(n int) []*vector.Vector { return s.inner.Result(n) }

// Bytes implements Sized for the wrapped state (make_list_if, dcountif, ...).
func (s *ifState) Bytes() int64 { return SizeOf(s.inner) }
