package db

import (
	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
)

// FunctionInfo is a function or aggregation as the console's completion
// shows it (name, kind, signature, doc).
type FunctionInfo = core.FunctionInfo

// Functions lists every scalar function and aggregation the engine knows,
// for completion.
func Functions() []FunctionInfo { return core.Functions() }

// ReferenceEntry is one line of the generated function reference.
type ReferenceEntry struct {
	Name   string
	Family string // string, math, ...; "" for an aggregation
	Doc    string
}

// FunctionReference lists the scalar functions and the aggregations in
// the order of the generated reference (`aplite functions`).
func FunctionReference() (scalars, aggregations []ReferenceEntry) {
	for _, f := range fn.All() {
		scalars = append(scalars, ReferenceEntry{Name: f.Name, Family: f.Family, Doc: f.Doc})
	}
	for _, s := range agg.All() {
		aggregations = append(aggregations, ReferenceEntry{Name: s.Name, Doc: s.Doc})
	}
	return scalars, aggregations
}
