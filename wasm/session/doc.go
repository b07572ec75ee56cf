// Package session is the engine as the browser sees it: named in-memory
// datasets loaded from text (NDJSON, a JSON array, CSV, or a tabular
// result saved from the API) or from Parquet, and APL queries over them,
// answered in the API's tabular shape.
//
// It is plain Go so that it builds and is tested natively; package main
// in the parent directory only binds it to JavaScript (syscall/js). The
// behaviour the console relies on (format detection, replacing a dataset,
// query errors with their position) lives here, where go test reaches it.
package session
