package db

import "github.com/aplite/aplite/core/ingest"

// Splunk HEC bodies are rewritten into NDJSON by core/ingest and stored
// with Ingest, the one ingest path; these re-exports let the server
// convert a body before it knows the dataset (which may be named inside
// the body).

type (
	// HECError is a HEC body refused whole, with Splunk's status code and
	// the envelope at fault.
	HECError = ingest.HECError
	// HECBatch is what HECEvents read: the envelopes and the first index.
	HECBatch = ingest.HECBatch
)

// HECEvents appends one NDJSON line per HEC envelope of body to dst.
func HECEvents(dst, body []byte) ([]byte, HECBatch, error) { return ingest.HECEvents(dst, body) }

// HECRaw appends one NDJSON _raw event per non-blank line of body to dst,
// each with the members meta holds.
func HECRaw(dst, body, meta []byte) ([]byte, int) { return ingest.HECRaw(dst, body, meta) }

// AppendJSONString appends s to dst as a JSON string.
func AppendJSONString(dst, s []byte) []byte { return ingest.AppendJSONString(dst, s) }
