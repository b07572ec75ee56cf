// Package core is aplite's query engine and its planner: it parses an APL
// query, resolves it against the schema of each stage (names, types with
// APL's implicit coercions, constant folding) into plan nodes
// (core/plan), has core/exec build the run's operators from those nodes
// and run them over the parts of the datasets it reads, and hands back the
// plain output.Output that core/render turns into the API's tabular and
// legacy formats. The way a query takes is in the package names: parser →
// core (planner) → core/plan → core/exec → core/render.
//
// The engine is pure Go and builds for GOOS=js GOARCH=wasm: it reads data
// only through the Catalog interface and store.Part, or chunk by chunk
// through a request's TableStreams (files queried in place).
package core
