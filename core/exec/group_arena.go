package exec

import (
	"strings"
	"unsafe"
)

// keyArena holds copies of a group table's string keys back to back in
// chunks: a new group costs a copy, not an allocation of its own, and the
// garbage collector sees a few chunks instead of one object per group
// (a summarize by a URL makes tens of thousands of groups per worker).
// The chunks live as long as any key in them, which is as long as the
// table or the answer built from it.
type keyArena struct {
	buf []byte
}

// keyChunk is the size of a chunk; longer keys get an allocation of
// their own, so one large value does not strand a chunk.
const keyChunk = 32 << 10

func (a *keyArena) clone(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > keyChunk/8 {
		return strings.Clone(s)
	}
	if cap(a.buf)-len(a.buf) < len(s) {
		a.buf = make([]byte, 0, keyChunk)
	}
	at := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(&a.buf[at], len(s))
}
