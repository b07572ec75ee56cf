package db

import (
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// The Elasticsearch bulk door: a bulk body's documents are decoded by
// core/ingest (DecodeBulk) and appended by the one append of every ingest
// path, so the field cap, durability and errors are Ingest's.

type (
	// BulkOp is the action of one bulk item (index, create, update,
	// delete).
	BulkOp = ingest.BulkOp
	// BulkItem is one action of a bulk body and what became of its
	// document.
	BulkItem = ingest.BulkItem
)

// The bulk actions.
const (
	BulkIndex  = ingest.BulkIndex
	BulkCreate = ingest.BulkCreate
	BulkUpdate = ingest.BulkUpdate
	BulkDelete = ingest.BulkDelete
)

// BulkResult is what IngestBulk did: the counts, failures and append of
// an ingest (Refused names the rows the field cap turned away), and the
// items in the body's order, whose Row is the row their document became.
type BulkResult struct {
	IngestResult
	Items []BulkItem
}

// IngestBulk stores the index and create documents of an Elasticsearch
// bulk body (already decompressed) in the dataset name and appends them
// durably before returning, as Ingest does; opts.Format is ignored. The
// error is a *SyntaxError when the body is refused whole (an unreadable
// action line, an action without its document), an *AppendError when it
// was read but not stored.
func (d *DB) IngestBulk(name string, body []byte, opts IngestOptions) (BulkResult, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return BulkResult{}, err
	}
	if opts.Now == 0 {
		opts.Now = time.Now().UnixNano()
	}
	var items []BulkItem
	rows, res, err := build(opts.Now, func(b *store.RowsBuilder) (ingest.Result, error) {
		br, err := ingest.DecodeBulk(body, opts, b)
		items = br.Items
		return br.Result, err
	})
	out := BulkResult{IngestResult: IngestResult{Result: res, Format: ingest.NDJSON}, Items: items}
	if err != nil {
		return out, err
	}
	out.IngestResult, err = appendRows(&d.fields, ds, rows, out.IngestResult, nil)
	return out, err
}
