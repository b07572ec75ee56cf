// Package agg holds aplite's aggregation functions (count, sum, avg,
// percentile, dcount, make_list, ...) behind one registry, in the form the
// hash aggregation of summarize and make-series drives: vectorized updates
// into per-group state arrays, and merges of partial states computed in
// parallel over different blocks.
package agg

import (
	"fmt"
	"sort"
	"time"

	"github.com/aplite/aplite/vector"
)

// Context carries per-query values some aggregations need.
type Context struct {
	// Start and End are the query time range; rate() divides by it when
	// there is no time bin. Zero when unbounded.
	Start, End time.Time
	// BinSize is the width of the time bin the aggregation runs in (ns), or
	// 0 when the summarize has no bin(_time, ...) key.
	BinSize int64
}

// Spec describes one aggregation function.
type Spec struct {
	// Name is the APL name (e.g. "percentile").
	Name string
	// APIName is the name reported in tabular results' fields[].agg.name;
	// it must be one the official clients accept: count countif distinct
	// distinctif sum sumif avg avgif min minif max maxif topk topkif
	// percentiles percentilesif histogram histogramif stdev stdevif
	// variance varianceif argmin argmax rate makeset makesetif makelist
	// makelistif computed spotlight.
	APIName string
	// MinArgs and MaxArgs bound the argument count; MaxArgs < 0 is variadic.
	MinArgs, MaxArgs int
	// ConstArgs lists the argument positions that must be constants (the
	// percentile of percentile(x, 95), the k of topk). The planner checks
	// it and passes their values to New.
	ConstArgs []int
	// Result returns the types of the output columns (one for most
	// aggregations; arg_max/arg_min return one per argument) or an error
	// naming the bad argument. Errors of Result and New leave out the
	// aggregation's name: the planner prefixes the name the query used, so
	// minif's error says minif, not min.
	Result func(args []vector.Type) ([]vector.Type, error)
	// New creates an empty state. consts[i] is the value of argument i
	// when it is constant (as vector.Vector.Value returns it), else nil.
	New func(ctx *Context, argTypes []vector.Type, consts []any) (State, error)
	// Doc is a one-line description for the reference page.
	Doc string
}

// State holds one aggregation's accumulators for every group of a
// summarize, indexed by group id (0, 1, 2, ...). It is used by one
// goroutine at a time; parallel scans build one State each and Merge them.
type State interface {
	// Grow makes groups [0, n) exist; new groups start empty.
	Grow(n int)
	// Update folds rows into groups. Row k of the update is physical row
	// sel[k] of the argument vectors (row k when sel is nil), and it
	// belongs to group groups[k]. Args are the evaluated arguments, each
	// of the batch's physical length (constants have Const set).
	Update(args []*vector.Vector, sel []int32, groups []uint32)
	// Merge folds group g of other (the same concrete type, built by the
	// same Spec with the same arguments) into group into[g] of this state.
	Merge(other State, into []uint32)
	// Result returns the output columns, n rows each, in group id order.
	Result(n int) []*vector.Vector
}

var registry = map[string]*Spec{}

// Register adds s; a duplicate name panics at init.
func Register(s *Spec) {
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("agg: %q registered twice", s.Name))
	}
	registry[s.Name] = s
}

// Lookup returns the aggregation called name, or nil.
func Lookup(name string) *Spec { return registry[name] }

// All returns every aggregation sorted by name.
func All() []*Spec {
	out := make([]*Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
