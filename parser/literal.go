package parser

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// timespanUnits maps every unit suffix the KQL lexer accepts to its length.
// A tick is 100 ns. There is deliberately no `w` unit (KQL has none).
var timespanUnits = map[string]time.Duration{
	"d": day, "day": day, "days": day,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond,
	"millisec": time.Millisecond, "millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"micro": time.Microsecond, "micros": time.Microsecond, "microsec": time.Microsecond,
	"microsecond": time.Microsecond, "microseconds": time.Microsecond,
	"nano": time.Nanosecond, "nanos": time.Nanosecond, "nanosec": time.Nanosecond,
	"nanosecond": time.Nanosecond, "nanoseconds": time.Nanosecond,
	"tick": 100 * time.Nanosecond, "ticks": 100 * time.Nanosecond,
}

const day = 24 * time.Hour

// parseTimespan decodes `1.5h`-style text: a decimal number and a unit.
// The fraction is applied exactly (no float rounding) down to 1 ns.
func parseTimespan(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	unit, ok := timespanUnits[s[i:]]
	if !ok || i == 0 {
		return 0, false
	}
	return scaleDecimal(s[:i], unit)
}

// scaleDecimal returns num*unit for a decimal text num, or false on
// overflow or malformed input.
func scaleDecimal(num string, unit time.Duration) (time.Duration, bool) {
	intPart, frac, _ := strings.Cut(num, ".")
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || intPart == "" || n > math.MaxInt64/int64(unit) {
		return 0, false
	}
	total := n * int64(unit)
	scale := int64(unit)
	for _, c := range []byte(frac) {
		if !isDigit(c) {
			return 0, false
		}
		scale /= 10
		if scale == 0 {
			break
		}
		total += int64(c-'0') * scale
	}
	if total < 0 {
		return 0, false
	}
	return time.Duration(total), true
}

// parseTimespanText decodes the body of timespan(...): a unit form
// (`15s`), a bare number of days (`2`), or KQL's `[-][d.]hh:mm[:ss[.f]]`.
func parseTimespanText(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	d, ok := parseTimespanBody(s)
	if neg {
		d = -d
	}
	return d, ok
}

func parseTimespanBody(s string) (time.Duration, bool) {
	if d, ok := parseTimespan(s); ok {
		return d, true
	}
	if !strings.Contains(s, ":") {
		return scaleDecimal(s, day)
	}
	var days int64
	hms := s
	if dot := strings.IndexByte(s, '.'); dot >= 0 && dot < strings.IndexByte(s, ':') {
		n, err := strconv.ParseInt(s[:dot], 10, 64)
		if err != nil || n > math.MaxInt64/int64(day) {
			return 0, false
		}
		days, hms = n, s[dot+1:]
	}
	parts := strings.Split(hms, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || h > 23 || m > 59 || h < 0 || m < 0 {
		return 0, false
	}
	total := time.Duration(days)*day + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
	if len(parts) == 3 {
		sec, ok := scaleDecimal(parts[2], time.Second)
		if !ok || sec >= time.Minute {
			return 0, false
		}
		total += sec
	}
	return total, total >= 0
}

// dateLayouts are the datetime(...) input forms, tried in order. Go's
// parser accepts an optional fraction after the seconds in each.
var dateLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	time.RFC1123,
	time.RFC1123Z,
	time.RFC822,
	time.RFC822Z,
}

// minDateTime and maxDateTime bound what a datetime holds (int64
// nanoseconds since the epoch); a literal outside them is refused rather
// than wrapped into a time in another century.
var (
	minDateTime = time.Unix(0, math.MinInt64).UTC()
	maxDateTime = time.Unix(0, math.MaxInt64).UTC()
)

// parseDateTime decodes the body of datetime(...) into a UTC time.
func parseDateTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// unquote decodes a string token: "..." and '...' with backslash escapes,
// or verbatim @"..." where a doubled quote is one quote. The error message
// names the bad escape.
func unquote(raw string) (string, string) {
	if raw[0] == '@' {
		q := raw[1:2]
		return strings.ReplaceAll(raw[2:len(raw)-1], q+q, q), ""
	}
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body, ""
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", "unterminated escape in string"
		}
		switch body[i] {
		case '"', '\'', '\\':
			b.WriteByte(body[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case 'u':
			if i+5 > len(body) {
				return "", `bad \u escape in string: want 4 hex digits`
			}
			n, err := strconv.ParseUint(body[i+1:i+5], 16, 32)
			if err != nil {
				return "", `bad \u escape in string: want 4 hex digits`
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			r, _ := utf8.DecodeRuneInString(body[i:])
			return "", `unknown escape \` + string(r) + ` in string (use @"..." for regular expressions)`
		}
	}
	return b.String(), ""
}

// quoteText renders a token for an error message.
func quoteText(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return strconv.Quote(s)
}
