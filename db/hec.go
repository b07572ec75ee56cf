package db

import "github.com/aplite/aplite/core/ingest"

// Splunk HEC bodies are decoded by core/ingest straight into rows
// (IngestHEC) or rewritten into NDJSON for Ingest; either way they take
// the one ingest path. The re-exports let the server convert a body, or
// read its first index, before it knows the dataset (which may be named
// inside the body).

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

// HECFirstIndex is the first envelope's "index" ("" for none), false
// when that envelope is one HEC refuses.
func HECFirstIndex(body []byte) (string, bool) { return ingest.HECFirstIndex(body) }

// IngestHEC decodes a body of HEC envelopes (already decompressed)
// straight into rows of the dataset name (ingest.DecodeHEC) and appends
// them as Ingest does. admit, when set, runs once the body has decoded
// without error and before anything is stored: a caller's last say (the
// rate limit, which a body HEC refuses must not spend); its error stores
// nothing and is returned. A body HEC refuses is a *HECError.
func (d *DB) IngestHEC(name string, body []byte, opts IngestOptions, admit func() error) (IngestResult, HECBatch, error) {
	var batch HECBatch
	res, err := d.IngestWith(name, opts.Now, func(b *RowsBuilder, now int64) (DecodeResult, error) {
		opts.Now = now
		var res DecodeResult
		var err error
		batch, res, err = ingest.DecodeHEC(body, opts, b)
		if err == nil && admit != nil {
			err = admit()
		}
		return res, err
	})
	res.Format = ingest.NDJSON
	return res, batch, err
}
