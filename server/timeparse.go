package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseTime reads a time as clients send it: RFC 3339 with any offset
// (also with a stray "Z" after an offset, as axiom-py writes tz-aware
// times), naive ISO 8601 taken as UTC, a date, or a relative expression
// "now", "now-1h", "now+30m" (units ms, s, m, h, d, w, y). The result is
// in UTC.
func parseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty time")
	}
	if strings.HasPrefix(strings.ToLower(s), "now") {
		return parseRelative(s, now)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	// "2024-01-01T00:00:00+00:00Z": drop the trailing Z after an offset.
	if n := len(s); n > 7 && (s[n-1] == 'Z' || s[n-1] == 'z') && (s[n-7] == '+' || s[n-7] == '-') {
		if t, err := time.Parse(time.RFC3339Nano, s[:n-1]); err == nil {
			return t.UTC(), nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot parse %q as a time: use RFC 3339 or now-<n><unit>", s)
}

func parseRelative(s string, now time.Time) (time.Time, error) {
	rest := strings.TrimSpace(s[3:])
	if rest == "" {
		return now.UTC(), nil
	}
	sign := 1.0
	switch rest[0] {
	case '-':
		sign = -1
	case '+':
	default:
		return time.Time{}, fmt.Errorf("cannot parse %q: expected now, now-<n><unit> or now+<n><unit>", s)
	}
	ns, err := spanNanos(strings.TrimSpace(rest[1:]))
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot parse %q: %v", s, err)
	}
	// A span past time.Duration's 292 years is moved in whole seconds
	// (capped far beyond any time a datetime holds, which the query's
	// range is clamped to), never wrapped into a time the other way.
	if math.Abs(ns) < math.MaxInt64 {
		return now.Add(time.Duration(sign * ns)).UTC(), nil
	}
	return time.Unix(now.Unix()+int64(sign*min(ns/1e9, 1e15)), int64(now.Nanosecond())).UTC(), nil
}

// parseSpan reads "<n><unit>" sums like "1h30m", with days, weeks and
// years on top of Go's units.
func parseSpan(s string) (time.Duration, error) {
	ns, err := spanNanos(s)
	if err != nil {
		return 0, err
	}
	if ns >= math.MaxInt64 {
		return 0, fmt.Errorf("duration %q is too long: at most 292 years", s)
	}
	return time.Duration(ns), nil
}

// spanNanos is the length of a parseSpan sum in nanoseconds, as a float so
// that a span too long for time.Duration is still measured.
func spanNanos(s string) (float64, error) {
	if s == "" {
		return 0, fmt.Errorf("missing duration")
	}
	var total float64
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("expected a number in %q", s)
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, err
		}
		j := i
		for j < len(s) && (s[j] < '0' || s[j] > '9') && s[j] != '.' {
			j++
		}
		var unit time.Duration
		switch s[i:j] {
		case "ns":
			unit = time.Nanosecond
		case "us", "µs":
			unit = time.Microsecond
		case "ms":
			unit = time.Millisecond
		case "s":
			unit = time.Second
		case "m":
			unit = time.Minute
		case "h":
			unit = time.Hour
		case "d":
			unit = 24 * time.Hour
		case "w":
			unit = 7 * 24 * time.Hour
		case "y":
			unit = 365 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("unknown unit %q (use ms, s, m, h, d, w or y)", s[i:j])
		}
		total += n * float64(unit)
		s = s[j:]
	}
	return total, nil
}
