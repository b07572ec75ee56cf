// Package bench holds aplite's end-to-end benchmarks: ingest (in process
// and over HTTP on loopback), the seven reference queries over 1M (and
// 10M) generated events, and a bounded load test. The data comes from
// bench/gen, the shared generator of realistic HTTP access logs.
//
// The package has no code of its own besides this comment: everything is
// in _test.go files, so `go test ./bench` runs only the fast generator
// checks, and `go test ./bench -run '^$' -bench .` runs the benchmarks.
// README.md beside this file says how to run them and what they measured.
package bench
