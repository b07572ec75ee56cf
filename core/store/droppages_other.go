//go:build !linux

package store

// dropPages is a no-op where madvise is not in the standard library (and
// in the browser, where blocks live on the heap); mapped pages then stay
// resident until the kernel reclaims them.
func dropPages(b []byte) {}

// readAhead is a no-op where madvise is not in the standard library.
func readAhead(b []byte) {}

// adviseRandom is a no-op where madvise is not in the standard library.
func adviseRandom(b []byte) {}
