// Package core is aplite's query engine: it plans an APL query (parser AST
// → operator tree, with name resolution, type inference and constant
// folding), scans the parts of the datasets it reads in parallel with
// block pruning, and runs the vectorized operator pipeline into a plain
// output.Output, which core/render turns into the API's tabular and legacy
// formats.
//
// The engine is pure Go and builds for GOOS=js GOARCH=wasm: it reads data
// only through the Catalog interface and store.Part, or chunk by chunk
// through a request's TableStreams (files queried in place).
package core
