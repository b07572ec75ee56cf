package db

import "github.com/aplite/aplite/core/ingest"

// The readers of an ingest request's headers, so that every front end
// (the HTTP API, the command line) reads them alike.

// FormatFromContentType maps a Content-Type header value to a Format.
func FormatFromContentType(ct string) (Format, error) { return ingest.FormatFromContentType(ct) }

// SplitCSVFields reads the X-Axiom-CSV-Fields header: the column names of
// a CSV body without a header row.
func SplitCSVFields(header string) []string { return ingest.SplitCSVFields(header) }

// ParseLabels reads the X-Axiom-Event-Labels header: fields added to
// every event of a body.
func ParseLabels(header string) (map[string]any, error) { return ingest.ParseLabels(header) }

// SniffFormat picks the format of a body that came without a useful
// content type or file name (Sniff as IngestOptions.Format does the same
// inside Ingest): a JSON array is JSON, text starting with an object is
// NDJSON, anything else is CSV.
func SniffFormat(body []byte) Format { return ingest.Sniff(body) }
