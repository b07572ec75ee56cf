package ingest

import (
	"fmt"
	"strings"
)

// Format is the encoding of an ingest body.
type Format int

// The supported body formats.
const (
	// JSON is a JSON array of event objects. A single object, or several
	// arrays or objects one after another, are accepted too.
	JSON Format = iota
	// NDJSON is one JSON event object per line.
	NDJSON
	// CSV is comma-separated values (RFC 4180) with a header row, or with
	// the column names given in Options.CSVFields.
	CSV
)

// String returns the canonical content type of the format.
func (f Format) String() string {
	switch f {
	case JSON:
		return "application/json"
	case NDJSON:
		return "application/x-ndjson"
	case CSV:
		return "text/csv"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// FormatFromContentType maps a Content-Type header value to a Format.
// Parameters such as "; charset=utf-8" are ignored; matching is
// case-insensitive. The NDJSON aliases that shippers use in the wild
// (x-json-stream, jsonl, ...) are accepted.
func FormatFromContentType(ct string) (Format, error) {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch mt {
	case "application/json":
		return JSON, nil
	case "application/x-ndjson", "application/ndjson", "application/x-json-stream",
		"application/jsonl", "application/x-jsonlines", "application/jsonlines":
		return NDJSON, nil
	case "text/csv", "application/csv":
		return CSV, nil
	case "":
		return 0, fmt.Errorf("missing content type: use application/json, application/x-ndjson or text/csv")
	}
	return 0, fmt.Errorf("unsupported content type %q: use application/json, application/x-ndjson or text/csv", ct)
}
