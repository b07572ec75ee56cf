// Package difftest is aplite's differential tester: it generates
// real-shaped data and APL queries from a seed, answers each query
// several ways that must agree, and reports where they do not, with the
// seed, the data parameters and a minimized query to re-run.
//
// The ways (modes) are the reference (one worker, no result cache, the
// data in blocks) against: N workers; the result cache warm; the fresh
// in-memory buffer before any flush; two query nodes running fragments;
// the blocks after compaction; and, in a separate test, the WebAssembly
// build under Node against the native one. Beside the modes, SQLancer's
// ternary logic partitioning (TLP) checks each generated predicate p:
// the rows where p, where not(p) and where isnull(p) add up to all rows,
// for where, per group of a summarize and per side of a join.
//
// `make difftest SEED=... N=...` runs it (difftest_test.go); `make test`
// runs a short smoke. Nothing in core imports this package.
package difftest
