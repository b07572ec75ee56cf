package db

import (
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
)

// FunctionDoc is one line of the function reference.
type FunctionDoc struct {
	Name   string
	Family string // "" for an aggregation
	Doc    string
}

// Functions lists the scalar functions the engine supports, in the order
// of the generated reference.
func Functions() []FunctionDoc {
	all := fn.All()
	out := make([]FunctionDoc, len(all))
	for i, f := range all {
		out[i] = FunctionDoc{Name: f.Name, Family: f.Family, Doc: f.Doc}
	}
	return out
}

// Aggregations lists the aggregations summarize supports.
func Aggregations() []FunctionDoc {
	all := agg.All()
	out := make([]FunctionDoc, len(all))
	for i, s := range all {
		out[i] = FunctionDoc{Name: s.Name, Doc: s.Doc}
	}
	return out
}
