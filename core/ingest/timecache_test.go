package ingest

import (
	"bytes"
	"testing"
)

// checkHourCache fills a cache from first (when parseTime reads it) and
// requires the cache to read b as parseTime does, or to leave it. It
// reports whether the cache read b.
func checkHourCache(t *testing.T, first, b string) bool {
	t.Helper()
	var c hourCache
	if _, err := parseTime([]byte(first), ""); err == nil {
		c.fill([]byte(first))
	}
	got, ok := c.parse([]byte(b))
	if !ok {
		return false
	}
	want, err := parseTime([]byte(b), "")
	if err != nil || got != want {
		t.Fatalf("after %q, the hour cache reads %q as %d; parseTime %d, %v", first, b, got, want, err)
	}
	return true
}

// The timestamps of the hour of the one before are read from the cache,
// to the nanosecond and with their zone; anything else is left to
// parseTime.
func TestHourCache(t *testing.T) {
	first := "2024-03-01T00:00:00Z"
	for _, b := range []string{
		"2024-03-01T00:00:15.616942Z", "2024-03-01T00:59:59Z", "2024-03-01T00:00:00.1Z",
		"2024-03-01T00:00:00.1234567891Z", "2024-03-01T00:30:00+05:30", "2024-03-01T00:30:00-0800",
		"2024-03-01T00:30:00,5+01", "2024-03-01T00:30:00", "2024-03-01T00:30:00.000000001z",
	} {
		if !checkHourCache(t, first, b) {
			t.Errorf("the cache of %q does not read %q", first, b)
		}
	}
	for _, b := range []string{
		"2024-03-01T01:00:00Z", "2024-03-01T00:60:00Z", "2024-03-01T00:00:60Z", "2024-03-01T00:0a:00Z",
		"2024-03-01T00:00:00.Z", "2024-03-01T00:00:00Zjunk", "2024-03-01T00:00:00+25:00", "2024-03-01T00:00",
		"2024-03-01T00:00Z", "2024-03-01T00:00:00.", "2024-03-01 00:00:00Z", "2024-03-02T00:00:00Z",
	} {
		if checkHourCache(t, first, b) {
			t.Errorf("the cache of %q reads %q", first, b)
		}
	}
	// Only a valid date and hour are cached.
	for _, first := range []string{"2024-02-30T00:00:00Z", "2024-13-01T00:00:00Z", "2024-03-01T24:00:00Z", "2024-03-01T0:00:00Z"} {
		var c hourCache
		c.fill([]byte(first))
		if c.ok {
			t.Errorf("%q is cached", first)
		}
	}
	// Near the end of the range the cache checks it as parseTime does.
	checkHourCache(t, "2262-04-11T23:00:00Z", "2262-04-11T23:47:16.854775807Z")
	checkHourCache(t, "2262-04-11T23:00:00Z", "2262-04-11T23:47:17Z")
	checkHourCache(t, "1677-09-21T00:00:00Z", "1677-09-21T00:12:44Z")
}

// A decode reads every timestamp of the real logs as parseTime does,
// whether or not the cache holds its hour.
func TestHourCacheInDecode(t *testing.T) {
	body := string(realBody(3000))
	got, _, _, err := run(t, body, Options{Format: NDJSON})
	must(t, err)
	want, _, _, err := run(t, body, Options{Format: NDJSON, TimestampFormat: "2006-01-02T15:04:05.999999999Z07:00"})
	must(t, err)
	for i := range got {
		if got[i]["_time"] != want[i]["_time"] {
			t.Fatalf("event %d: _time %v, time.Parse %v", i, got[i]["_time"], want[i]["_time"])
		}
	}
}

// FuzzHourCache holds the cache to parseTime on any pair of timestamps.
func FuzzHourCache(f *testing.F) {
	f.Add("2024-03-01T00:00:00Z", "2024-03-01T00:00:15.616942Z")
	f.Add("2024-03-01T00:00:00Z", "2024-03-01T00:61:15Z")
	f.Add("2024-03-01 23:00:00+01:00", "2024-03-01 23:01:02.5-0130")
	f.Fuzz(func(t *testing.T, first, b string) {
		checkHourCache(t, first, b)
		checkHourCache(t, first, first[:min(len(first), 14)]+b)
	})
}

// The fraction is read as a word past the end of the timestamp when its
// slice has the capacity, as it has in the line: the digits beyond its
// end (the next value's, or a reused buffer's) do not count.
func TestHourCacheReadsOnlyItsOwnDigits(t *testing.T) {
	var c hourCache
	c.fill([]byte("2024-03-01T00:00:00Z"))
	for _, s := range []string{"2024-03-01T00:00:15.6", "2024-03-01T00:00:15.61", "2024-03-01T00:00:15.6123", "2024-03-01T00:00:15"} {
		b := []byte(s + `99","n":1}`)[:len(s)]
		got, ok := c.parse(b)
		want, err := parseTime([]byte(s), "")
		if !ok || err != nil || got != want {
			t.Errorf("%q with digits after it: %d %v, want %d %v", s, got, ok, want, err)
		}
	}
}

// BenchmarkHourCache reads the timestamps of the real logs through the
// hour cache, as objectFast does.
func BenchmarkHourCache(b *testing.B) {
	var ts [][]byte
	for _, l := range bytes.Split(realBody(20000), []byte("\n")) {
		if len(l) > 30 {
			ts = append(ts, l[10:bytes.IndexByte(l[10:], '"')+10])
		}
	}
	var c hourCache
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range ts {
			if _, ok := c.parse(t); !ok {
				c.fill(t)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ts)), "ns/timestamp")
}
