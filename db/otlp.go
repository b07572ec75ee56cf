package db

import (
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/ingest/otlp"
	"github.com/aplite/aplite/core/store"
)

// OTLPSignal is the kind of telemetry an OTLP export body carries.
type OTLPSignal = otlp.Signal

// The OTLP signals, one per OTLP/HTTP route.
const (
	OTLPLogs    = otlp.Logs
	OTLPTraces  = otlp.Traces
	OTLPMetrics = otlp.Metrics
)

// OTLPError is an export body that does not parse: the caller's fault,
// unlike an *AppendError.
type OTLPError struct{ Err error }

func (e *OTLPError) Error() string { return "invalid OTLP body: " + e.Err.Error() }

// Unwrap returns the decoder's error.
func (e *OTLPError) Unwrap() error { return e.Err }

// IngestOTLP decodes an OTLP/HTTP export body of signal sig (protobuf, or
// its JSON form when isJSON) into the dataset name and stores its events
// durably before returning: one event per log record, span or metric data
// point. A body that does not parse is an *OTLPError and stores nothing.
func (d *DB) IngestOTLP(name string, body []byte, sig OTLPSignal, isJSON bool) (IngestResult, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return IngestResult{}, err
	}
	now := time.Now().UnixNano()
	rows, res, err := build(now, func(b *store.RowsBuilder) (ingest.Result, error) {
		if err := otlp.Decode(body, sig, isJSON, now, b); err != nil {
			return ingest.Result{}, &OTLPError{Err: err}
		}
		return ingest.Result{Ingested: b.Len(), ProcessedBytes: int64(len(body))}, nil
	})
	if err != nil {
		return IngestResult{Result: res}, err
	}
	return appendRows(ds, rows, IngestResult{Result: res}, nil)
}
