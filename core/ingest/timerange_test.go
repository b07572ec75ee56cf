package ingest

import (
	"strings"
	"testing"
	"time"
)

// A time in the last months of 2262 or the first of 1677 has a year in
// range but no int64 nanoseconds: it is refused, not stored wrapped into
// 1678 or 2261; the ends of the range themselves are kept.
func TestParseTimeRangeEnds(t *testing.T) {
	for _, c := range []struct{ in, layout string }{
		{"Mon, 01 Dec 2262 00:00:00 +0000", ""},
		{"2262-06-01 00:00:00", "2006-01-02 15:04:05"},
		{"1677-09-01 00:00:00", "2006-01-02 15:04:05"},
	} {
		got, err := parseTime([]byte(c.in), c.layout)
		if err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%q: %v (%v), want out of range", c.in, time.Unix(0, got).UTC(), err)
		}
	}
	for _, in := range []string{"2262-04-11 23:47:16", "1677-09-21 00:12:44"} {
		got, err := parseTime([]byte(in), "2006-01-02 15:04:05")
		if err != nil || time.Unix(0, got).UTC().Format("2006-01-02 15:04:05") != in {
			t.Errorf("%q: %v, %v", in, time.Unix(0, got).UTC(), err)
		}
	}
}
