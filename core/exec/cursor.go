package exec

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

// ParseCursor decodes a cursor; ok is false for anything else.
func ParseCursor(s string) (int64, bool) {
	if !strings.HasPrefix(s, "c") {
		return 0, false
	}
	ns, err := strconv.ParseInt(s[1:], 36, 64)
	return ns, err == nil
}
