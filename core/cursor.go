package core

import (
	"strconv"
	"strings"
)

// Cursors let a client page through raw events newest first: a result
// reports the cursors of its oldest and newest rows (minCursor,
// maxCursor), and a request with cursor = minCursor continues below it.
// A cursor encodes the row's _time in ns ("c" + base-36); rows sharing
// the boundary timestamp are returned again only with includeCursor.

// makeCursor encodes a _time as a cursor.
func makeCursor(ns int64) string { return "c" + strconv.FormatInt(ns, 36) }

// parseCursor decodes a cursor; ok is false for anything else.
func parseCursor(s string) (int64, bool) {
	if !strings.HasPrefix(s, "c") {
		return 0, false
	}
	ns, err := strconv.ParseInt(s[1:], 36, 64)
	return ns, err == nil
}

// applyCursor narrows a scan to the rows after the request's cursor in
// newest-first order.
func applyCursor(s *scanSource, req *Request) {
	ns, ok := parseCursor(req.Cursor)
	if !ok {
		return
	}
	hi := ns
	if req.IncludeCursor {
		hi = ns + 1
	}
	if !s.hasHi || hi < s.timeHi {
		s.timeHi, s.hasHi = hi, true
	}
}
