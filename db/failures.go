package db

import (
	"sync"

	"github.com/aplite/aplite/core/store"
)

// ErrNoSpace is wrapped by an append refused because the data
// directory's disk is full; nothing of it was stored, and appends resume
// by themselves once space is freed.
var ErrNoSpace = store.ErrNoSpace

// FailureTally counts the events that reads of a file in place could not
// decode, across the chunks their workers decode at once, and keeps the
// first reason: a query over a file reports them once it ran, as an
// ingest reports its failures, so no event is dropped silently.
type FailureTally struct {
	mu    sync.Mutex
	n     int
	first string
}

// Add counts the failures of one decode.
func (f *FailureTally) Add(res DecodeResult) {
	if res.Failed == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 && len(res.Failures) > 0 {
		f.first = res.Failures[0].Error
	}
	f.n += res.Failed
}

// Take returns the failures counted and the first reason, and starts the
// count again (a read restarted from the first chunk counts anew).
func (f *FailureTally) Take() (n int, first string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, first = f.n, f.first
	f.n, f.first = 0, ""
	return n, first
}
