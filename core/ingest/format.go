package ingest

import (
	"bytes"
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

// Sniff picks the format of a body that came without a useful content
// type or file name: a JSON array is JSON, text starting with an object is
// NDJSON (one object alone is one line of it), anything else is CSV.
// Leading white space and a UTF-8 byte-order mark are skipped.
func Sniff(body []byte) Format {
	t := bytes.TrimLeft(body, " \t\r\n\xef\xbb\xbf")
	switch {
	case len(t) == 0, t[0] == '[':
		return JSON
	case t[0] == '{':
		return NDJSON
	}
	return CSV
}
