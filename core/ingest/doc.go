// Package ingest decodes ingest request bodies (a JSON array of objects,
// NDJSON or CSV, optionally gzip or zstd compressed) straight into a
// store.RowsBuilder, following the Axiom ingest rules: nested objects are
// flattened into dotted field names, arrays and declared map fields stay
// dynamic values, _time comes from the timestamp field (auto-detected
// format unless one is given), reserved names are renamed _user_<name>,
// and a bad event is counted as failed without rejecting the rest.
//
// The JSON path is a hand-written scanner rather than a general decoder:
// it never builds a map per event, interns field names across events (a
// repeated event shape costs one byte comparison per key), and copies
// string values into a per-request arena, deduplicating repeated values
// per field. It builds for js/wasm; only the benchmarks use sonic.
//
// Memory note for consumers of the rows: string values point into arena
// chunks of up to 1 MB shared by a request's strings, so one retained
// string keeps its whole chunk alive. Buffering rows until a flush is fine
// (they die together); a structure that outlives the batch and keeps a few
// strings (a dictionary, an index, a cache) should strings.Clone them.
package ingest
