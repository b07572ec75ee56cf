package fn

import (
	"strconv"
	"strings"
	"time"
)

// timeLayouts are the datetime text forms todatetime accepts, tried in
// order. A value without a zone is UTC. Go's parser accepts a fractional
// second after the seconds field even when the layout has none.
var timeLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02",
	"01/02/2006 15:04:05", // KQL accepts US month/day/year too (the parse doc example)
	"01/02/2006",
	time.RFC1123Z,
	time.RFC1123,
	time.RFC850,
	time.RFC822Z,
	time.RFC822,
	time.ANSIC,
	"02 Jan 2006 15:04:05",
	"Jan 2 2006 15:04:05",
}

// ParseTime parses a datetime string (ISO 8601 / RFC 3339 and the RFC
// 822/850/1123 forms) into ns since the epoch, UTC.
func ParseTime(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return TimeNanos(t) // a time a datetime cannot hold is null
		}
	}
	return 0, false
}

// durationUnits maps KQL timespan literal suffixes to their length.
var durationUnits = map[string]time.Duration{
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond,
	"millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"us": time.Microsecond, "µs": time.Microsecond, "micro": time.Microsecond, "micros": time.Microsecond,
	"microsecond": time.Microsecond, "microseconds": time.Microsecond,
	"ns": time.Nanosecond, "nano": time.Nanosecond, "nanos": time.Nanosecond,
	"nanosecond": time.Nanosecond, "nanoseconds": time.Nanosecond,
	"tick": 100 * time.Nanosecond, "ticks": 100 * time.Nanosecond,
}

// ParseDuration parses a timespan string into ns: a KQL literal ("2d",
// "1.5h", "100ms", "20min"), a Go duration ("1h30m") or the KQL clock form
// "[-][d.]hh:mm[:ss[.fffffff]]".
func ParseDuration(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.Contains(s, ":") {
		return parseClock(s)
	}
	if d, ok := parseUnitLiteral(s); ok {
		return d, true
	}
	if d, err := time.ParseDuration(s); err == nil {
		return int64(d), true
	}
	return 0, false
}

// parseUnitLiteral parses one number followed by one unit ("1.5h").
func parseUnitLiteral(s string) (int64, bool) {
	i := 0
	for i < len(s) && (s[i] == '-' || s[i] == '+' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	unit, ok := durationUnits[strings.ToLower(s[i:])]
	if i == 0 || !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	return FloatToInt(f * float64(unit))
}

// parseClock parses "[-][d.]hh:mm[:ss[.fffffff]]".
func parseClock(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var days int64
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	if d, h, ok := strings.Cut(parts[0], "."); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return 0, false
		}
		days, parts[0] = n, h
	}
	h, err1 := strconv.ParseInt(parts[0], 10, 64)
	m, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || h < 0 || m < 0 || m > 59 {
		return 0, false
	}
	var sec float64
	if len(parts) == 3 {
		f, err := strconv.ParseFloat(parts[2], 64)
		if err != nil || f < 0 || f >= 60 {
			return 0, false
		}
		sec = f
	}
	d := days*int64(24*time.Hour) + h*int64(time.Hour) + m*int64(time.Minute) + int64(sec*1e9+0.5)
	if neg {
		d = -d
	}
	return d, true
}
