// Package parquet reads Parquet files into aplite's columnar rows and
// writes query results as Parquet, for every front end that meets a
// Parquet file: the command line (`aplite query -in x=f.parquet`,
// `-format parquet`) and the browser's offline mode (wasm/session).
//
// Reading goes through an io.ReaderAt, one row group at a time, so a
// caller never holds the whole file: the command line hands it an
// *os.File, the browser a Ranges holding only the footer and the row
// group being decoded, which its Web Worker read with File.slice. Only
// the leaf columns a caller keeps are decoded, and only their byte
// ranges are read (ChunkRanges). Flat schemas and nested groups (read as dotted
// field names) are supported; repeated fields (lists, maps) are reported
// by Skipped and left out.
//
// The package builds for GOOS=js GOARCH=wasm and does no I/O of its own.
package parquet
