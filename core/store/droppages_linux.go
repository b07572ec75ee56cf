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

// readAhead asks the kernel to read every page of b, a span of a
// read-only file mapping, in one go before the decoder touches it. A
// column out of the page cache (the first query after a restart) was
// otherwise read by page faults, each waiting for its own small
// readahead window, which cost the cold query most of its time. Pages
// already cached make it a walk of the page cache, no I/O.
func readAhead(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := start &^ (pageSize - 1)
	// madvise wants a page-aligned start; the mapping covers the page.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, start-lo+uintptr(len(b)), syscall.MADV_WILLNEED)
}

// adviseRandom turns off read-around on faults in a fresh file mapping
// (mmapFile says why).
func adviseRandom(b []byte) { _ = syscall.Madvise(b, syscall.MADV_RANDOM) }
