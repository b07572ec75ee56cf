// Package otlp stores OpenTelemetry export bodies (OTLP/HTTP logs, traces
// and metrics, protobuf or JSON) in a db.DB through its one ingest path
// (db.DB.IngestWith), decoded by core/ingest/otlp. It is apart from db so
// that the browser build, which receives no exports, does not link the
// OTLP protobuf packages (about 340 KB of WebAssembly).
package otlp

import (
	"github.com/aplite/aplite/core/ingest/otlp"
	"github.com/aplite/aplite/db"
)

// Signal is the kind of telemetry an export body carries.
type Signal = otlp.Signal

// The OTLP signals, one per OTLP/HTTP route.
const (
	Logs    = otlp.Logs
	Traces  = otlp.Traces
	Metrics = otlp.Metrics
)

// Error is an export body that does not parse: the caller's fault, unlike
// a *db.AppendError.
type Error struct{ Err error }

// Error says the body is not valid OTLP, and why.
func (e *Error) Error() string { return "invalid OTLP body: " + e.Err.Error() }

// Unwrap returns the decoder's error.
func (e *Error) Unwrap() error { return e.Err }

// Ingest decodes an export body of signal sig (protobuf, or its JSON form
// when isJSON) into the dataset name of d and stores its events durably
// before returning: one event per log record, span or metric data point.
// A body that does not parse is an *Error and stores nothing.
func Ingest(d *db.DB, name string, body []byte, sig Signal, isJSON bool) (db.IngestResult, error) {
	return d.IngestWith(name, 0, func(b *db.RowsBuilder, now int64) (db.DecodeResult, error) {
		if err := otlp.Decode(body, sig, isJSON, now, b); err != nil {
			return db.DecodeResult{}, &Error{Err: err}
		}
		return db.DecodeResult{Ingested: b.Len(), ProcessedBytes: int64(len(body))}, nil
	})
}
