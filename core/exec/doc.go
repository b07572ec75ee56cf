// Package exec is aplite's query execution: the runtime form of every
// operator, built per run from plan nodes (core/plan), and what they run
// on. Batches (vector.Batch plus lazily loaded columns), expressions and
// their kernels, sources (scans of stored parts and of streams read in
// place, constant tables, unions), stream and blocking stages with their
// sinks, group tables, the decoded-column and result caches, fragments
// run for another node, and the plain output.Output a run ends in, totals
// included.
//
// The planner (package core) resolves the AST into plan nodes and imports
// this package; this package never imports the planner or the parser
// (dep_test.go), so a fragment that arrives from another node runs
// without the query text. What a run computes lives in its Ctx, never on
// a plan node or on an operator shared by two runs.
//
// Like the rest of the engine it is pure Go and builds for GOOS=js
// GOARCH=wasm.
package exec
