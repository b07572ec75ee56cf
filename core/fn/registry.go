// Package fn is aplite's registry of scalar functions: one table of every
// function APL documents, with its arity, its type rule and its vectorized
// implementation. The planner checks calls against the registry and the
// executor evaluates through it; `aplite functions` and FUNCTIONS.md are
// generated from it, so the list of what is supported cannot drift from
// the code.
//
// A function evaluates a whole batch at once: it receives its arguments as
// vectors of the batch's rows (constants as vector.Vector with Const set)
// and which of those rows are live (Rows), and returns one vector of as
// many rows with the live ones computed. Functions over strings should run
// once per distinct value when the argument is dictionary encoded (see
// MapStrings).
package fn

import (
	"fmt"
	"sort"
	"time"

	"github.com/aplite/aplite/vector"
)

// Context carries the per-query values functions may read. It is shared by
// every call in one query and must not be modified during evaluation.
type Context struct {
	// Now is the query start time; now() and ago() are fixed to it.
	Now time.Time
	// Start and End are the query's time range [Start, End); zero when
	// unbounded. bin_auto derives its bin size from them.
	Start, End time.Time
	// Rand is the seed for rand(); deterministic per query.
	Rand uint64
	// Charge, when set, asks the query's memory budget for n bytes a
	// function is about to build (a negative n gives them back) and fails
	// once the query is over its budget. Functions whose result can be
	// far larger than their arguments (strrep nested in strrep grows
	// 1024-fold at each level) call it, so that one expression fails its
	// query instead of exhausting the server.
	Charge func(n int64) error
}

// charge calls c.Charge when there is one.
func (c *Context) charge(n int64) error {
	if c == nil || c.Charge == nil {
		return nil
	}
	return c.Charge(n)
}

// Func describes one scalar function.
type Func struct {
	// Name is the APL name, lower case (e.g. "strlen").
	Name string
	// Aliases are other names for the same function (e.g. "toint" for "tolong").
	Aliases []string
	// Family groups the function in the generated reference (string, math, ...).
	Family string
	// MinArgs and MaxArgs bound the argument count; MaxArgs < 0 is variadic.
	MinArgs, MaxArgs int
	// Result returns the result type for the argument types, or an error
	// that says which argument is wrong and why (the planner adds the
	// position). It must not look at values.
	Result func(args []vector.Type) (vector.Type, error)
	// Eval computes the function over n rows.
	Eval func(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error)
	// Doc is a one-line description for the reference page.
	Doc string
	// Volatile marks functions whose value is not fixed by their
	// arguments (rand), so the planner never constant-folds them.
	Volatile bool
	// Clock marks functions that read the query's clock (Context.Now):
	// fixed for one query, so they fold, but two runs of the same query
	// at different times differ.
	Clock bool
}

// VariesBetweenRuns reports whether two runs of one query over the same
// data may give f different values (it is Volatile or reads the Clock):
// an answer that calls it must never be served from a cache.
func (f *Func) VariesBetweenRuns() bool { return f.Volatile || f.Clock }

var registry = map[string]*Func{}

// Register adds f under its name and aliases. It panics on a duplicate
// name, which is a programming error caught at init.
func Register(f *Func) {
	for _, n := range append([]string{f.Name}, f.Aliases...) {
		if _, dup := registry[n]; dup {
			panic(fmt.Sprintf("fn: %q registered twice", n))
		}
		registry[n] = f
	}
}

// Lookup returns the function called name, or nil.
func Lookup(name string) *Func { return registry[name] }

// All returns every registered function once, sorted by family and name.
func All() []*Func {
	seen := map[*Func]bool{}
	var out []*Func
	for _, f := range registry {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Family != out[j].Family {
			return out[i].Family < out[j].Family
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Fixed returns a Result rule that ignores argument types and returns t.
func Fixed(t vector.Type) func([]vector.Type) (vector.Type, error) {
	return func([]vector.Type) (vector.Type, error) { return t, nil }
}
