package exec

import (
	"strings"
	"sync/atomic"
	"testing"
)

// TestFragmentStatsRoundTrip: every scan counter a fragment sends back
// arrives, pages decoded included, and the bytes after the statistics
// are left for the sinks.
func TestFragmentStatsRoundTrip(t *testing.T) {
	var s scanStats
	for i, c := range []*atomic.Int64{&s.BlocksExamined, &s.BlocksMatched, &s.BlocksCached,
		&s.RowsExamined, &s.RowsMatched, &s.PagesDecoded} {
		c.Store(int64(i+1) * 1000)
	}
	s.noteBlock(-5, 1<<40)
	b := append(encodeFragmentStats(nil, &s), "sinks"...)
	var got scanStats
	rest, err := decodeFragmentStats(b, &got)
	if err != nil {
		t.Fatal(err)
	}
	if string(rest) != "sinks" {
		t.Fatalf("left %q after the statistics, want the sinks", rest)
	}
	want, have := statsOf(&s), statsOf(&got)
	if want != have {
		t.Fatalf("round trip gives %+v, want %+v", have, want)
	}
	if _, err := decodeFragmentStats(b[:len(b)-len("sinks")-1], &got); err == nil {
		t.Fatal("truncated statistics decoded")
	}
	if _, err := decodeFragmentStats(append([]byte{fragmentStatsVersion + 1}, b[1:]...), &got); err == nil ||
		!strings.Contains(err.Error(), "version") {
		t.Fatalf("statistics of another version decoded: %v", err)
	}
}

// statsOf copies the counters of s for comparison.
func statsOf(s *scanStats) [9]int64 {
	seen := int64(0)
	if s.Seen.Load() {
		seen = 1
	}
	return [9]int64{s.BlocksExamined.Load(), s.BlocksMatched.Load(), s.BlocksCached.Load(),
		s.RowsExamined.Load(), s.RowsMatched.Load(), s.MinBlockTime.Load(), s.MaxBlockTime.Load(),
		s.PagesDecoded.Load(), seen}
}
