//go:build linux

package store

import (
	"os"
	"syscall"
	"unsafe"
)

// pageSize is the unit madvise works in.
var pageSize = uintptr(os.Getpagesize())

// dropPages takes the whole pages inside b, a span of a read-only shared
// file mapping, out of the process's resident set. Without it every page
// a query ever read stays counted in the server's RSS (at 10M events the
// block files run to hundreds of MB), although the decoded values live on
// the heap. The file's pages stay in the page cache, so a later read
// faults them back in without I/O; and because block files never change,
// a reader of the same span in another goroutine sees the same bytes.
// Errors are ignored: the advice only frees memory sooner.
func dropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + pageSize - 1) &^ (pageSize - 1)
	hi := (start + uintptr(len(b))) &^ (pageSize - 1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(b[lo-start:hi-start], syscall.MADV_DONTNEED)
}
