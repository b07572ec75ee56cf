// Package vector holds aplite's in-memory columnar data: typed column
// vectors with validity bitmaps, batches with selection vectors, and the
// kernels that compute over them.
//
// A Vector is one column of one APL type. Numbers, datetimes and timespans
// live in flat int64/float64 slices so kernels are tight loops the compiler
// can bounds-check-eliminate; strings are either plain ([]string) or
// dictionary encoded (codes into a small dictionary), so string predicates
// and group-by keys can be computed once per distinct value. A Vector may be
// a constant: one physical value that stands for every row, which is how
// literals enter expressions without being broadcast.
//
// The package is part of the pure-Go core: it must build for GOOS=js
// GOARCH=wasm and may not import os, syscall or net (see dep_test.go).
package vector
