package ingest

import "unsafe"

// arena hands out strings backed by large shared chunks, so a request's
// string values cost one allocation per chunk instead of one per value.
// The chunks are never written again once a string points into them, and
// a string keeps its chunk alive; all strings of a request share the
// lifetime of the rows batch they end up in. A caller that keeps a few of
// them much longer than the batch should clone them (strings.Clone).
type arena struct {
	buf   []byte
	chunk int
}

// maxArenaChunk bounds one chunk, so a stray long-lived string pins at most
// this much memory.
const maxArenaChunk = 1 << 20

// reset prepares the arena for a request of about n bytes, dropping (not
// reusing) the previous chunk, which strings of the last request point into.
// The first chunk is a thirty-second of the request and later ones double:
// a projected decode (Options.Keep) stores a few fields' strings, and a
// first chunk of half the request was mostly never written, yet zeroed
// and collected once per 8 MB chunk of a file queried in place (a few
// percent of the CPU of such a query). A full decode reaches the largest
// chunk after a few doublings.
func (a *arena) reset(n int) {
	a.buf = nil
	a.chunk = min(max(n/32, 4096), maxArenaChunk)
}

// str returns a string with the bytes of b.
func (a *arena) str(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < n {
		if n > a.chunk/8 {
			return string(b) // a big value gets its own allocation
		}
		a.buf = make([]byte, 0, a.chunk)
		if a.chunk < maxArenaChunk {
			a.chunk *= 2
		}
	}
	i := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[i], n)
}
