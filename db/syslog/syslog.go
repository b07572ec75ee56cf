// Package syslog stores syslog messages (a Heroku drain's logplex body, a
// syslog listener's stream) in a db.DB through its one ingest path
// (db.DB.IngestWith), read by core/ingest/syslog, whose framing it passes
// on so that the server, which reaches the engine only through db, can
// frame a stream itself.
package syslog

import (
	"io"

	"github.com/aplite/aplite/core/ingest/syslog"
	"github.com/aplite/aplite/db"
)

// Batch collects one batch's messages as events (syslog.Batch).
type Batch = syslog.Batch

// Reader reads octet-counted or newline-framed frames from a stream
// (syslog.Reader).
type Reader = syslog.Reader

// MaxFrame is the largest message a Reader takes by default (64 KiB).
const MaxFrame = syslog.MaxFrame

// ErrFrameTooLong is a frame over a Reader's limit.
var ErrFrameTooLong = syslog.ErrFrameTooLong

// NewReader reads frames of up to max bytes (MaxFrame when max <= 0)
// from r.
func NewReader(r io.Reader, max int) *Reader { return syslog.NewReader(r, max) }

// SplitFrames calls fn with each frame of body, or with the error that
// makes one unreadable (syslog.SplitFrames).
func SplitFrames(body []byte, fn func(frame []byte, err error)) { syslog.SplitFrames(body, fn) }

// Ingest stores in the dataset name of d the messages fill adds to a
// batch, durably before it returns: one event per message, a message that
// does not parse counted and listed as failed.
func Ingest(d *db.DB, name string, now int64, fill func(*Batch)) (db.IngestResult, error) {
	return d.IngestWith(name, now, func(b *db.RowsBuilder, _ int64) (db.DecodeResult, error) {
		bt := syslog.NewBatch(b, 0)
		fill(bt)
		return bt.Result(), nil
	})
}
