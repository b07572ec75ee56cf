package ingest

import (
	"errors"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// Time values must fit int64 nanoseconds: years 1678 to 2262.
const (
	minSec = math.MinInt64/1_000_000_000 + 1
	maxSec = math.MaxInt64/1_000_000_000 - 1
)

var (
	errTimeFormat = errors.New("unrecognized time format (want RFC 3339, ISO 8601 or Unix epoch seconds, ms, µs or ns)")
	errTimeRange  = errors.New("time out of range (1677-09-21T00:12:43Z to 2262-04-11T23:47:16Z)")
)

// fallbackLayouts are tried, in order, for strings the fast ISO 8601 path
// does not take: the common log-line formats.
var fallbackLayouts = []string{
	time.RFC1123Z, time.RFC1123, time.RFC850, time.RFC822Z, time.RFC822,
	time.ANSIC, time.UnixDate, time.RubyDate,
	"02/Jan/2006:15:04:05 -0700", // common/combined log format
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999 -0700 MST", // Go's time.Time.String
}

// parseTime parses a timestamp string into ns since the epoch. With a
// layout it is time.Parse (zone-less layouts are UTC); without one the
// format is detected: ISO 8601 / RFC 3339 (any offset; none means UTC),
// epoch numbers as strings, then fallbackLayouts.
func parseTime(b []byte, layout string) (int64, error) {
	s := unsafe.String(unsafe.SliceData(b), len(b)) // not retained
	if layout != "" {
		t, err := time.Parse(layout, s)
		if err != nil {
			return 0, errors.New("does not match the timestamp format " + strconv.Quote(layout))
		}
		return unixNano(t)
	}
	if ns, ok, err := parseISO(b); ok {
		return ns, err
	}
	if looksNumeric(b) {
		if iv, err := strconv.ParseInt(s, 10, 64); err == nil {
			return epochOrErr(epochInt(iv))
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return epochOrErr(epochFloat(f))
		}
	}
	for _, l := range fallbackLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return unixNano(t)
		}
	}
	return 0, errTimeFormat
}

func epochOrErr(ns int64, ok bool) (int64, error) {
	if !ok {
		return 0, errTimeRange
	}
	return ns, nil
}

// minTime and maxTime are the first and last instant int64 nanoseconds
// hold; the year alone does not tell (2262-04-12 is past the end).
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

func unixNano(t time.Time) (int64, error) {
	if t.Before(minTime) || t.After(maxTime) {
		return 0, errTimeRange
	}
	return t.UnixNano(), nil
}

// looksNumeric reports whether b is a plain decimal number.
func looksNumeric(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	dot := false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}

// Epoch numbers are read by magnitude: below 1e11 seconds (up to year
// 5138), below 1e14 milliseconds, below 1e17 microseconds, else
// nanoseconds. Dates since 1973 are unambiguous this way.
const (
	secLimit   = 1e11
	milliLimit = 1e14
	microLimit = 1e17
)

// epochInt converts an epoch number in seconds, ms, µs or ns to ns.
func epochInt(x int64) (int64, bool) {
	a := x
	if a < 0 {
		if a == math.MinInt64 {
			return x, true
		}
		a = -a
	}
	var mul int64
	switch {
	case a < secLimit:
		mul = 1e9
	case a < milliLimit:
		mul = 1e6
	case a < microLimit:
		mul = 1e3
	default:
		return x, true
	}
	if a > math.MaxInt64/mul {
		return 0, false
	}
	return x * mul, true
}

// epochFloat is epochInt for fractional epoch numbers. The whole and
// fractional parts are scaled separately, so 1704164645.25 s is exactly
// ...645250000000 ns rather than what float64 multiplication gives.
func epochFloat(f float64) (int64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	a := math.Abs(f)
	var mul float64
	switch {
	case a < secLimit:
		mul = 1e9
	case a < milliLimit:
		mul = 1e6
	case a < microLimit:
		mul = 1e3
	default:
		mul = 1
	}
	whole, frac := math.Modf(f)
	if math.Abs(whole*mul) >= 9.2e18 {
		return 0, false
	}
	return int64(whole)*int64(mul) + int64(math.Round(frac*mul)), true
}

// fracScale[n] turns n fraction digits into nanoseconds.
var fracScale = [10]int{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 1}

// parseISO is a fast path for ISO 8601 / RFC 3339 timestamps:
//
//	YYYY-MM-DD[(T|t| )h[h]:mm[:ss[.fraction]]][Z|z|±hh:mm|±hhmm|±hh]
//
// ok reports whether b has that shape; err then tells a shape with
// out-of-range parts (month 13, 25:00, Feb 30) from a valid time. No zone
// means UTC. It agrees with time.Parse(time.RFC3339Nano, ...) wherever that
// succeeds.
func parseISO(b []byte) (ns int64, ok bool, err error) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return 0, false, nil
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, false, nil
	}
	var hour, min, sec, frac, off int
	rest := b[10:]
	if len(rest) > 0 {
		if c := rest[0]; c != 'T' && c != 't' && c != ' ' {
			return 0, false, nil
		}
		// The hour may have one digit, as time.Parse allows.
		h := 2
		if len(rest) > 2 && rest[2] == ':' {
			h = 1
		}
		if len(rest) < h+4 || rest[h+1] != ':' {
			return 0, false, nil
		}
		var okh, okm bool
		hour, okh = digits(rest[1 : h+1])
		min, okm = digits(rest[h+2 : h+4])
		if !okh || !okm {
			return 0, false, nil
		}
		rest = rest[h+4:]
		if len(rest) >= 3 && rest[0] == ':' {
			s, oks := digits(rest[1:3])
			if !oks {
				return 0, false, nil
			}
			sec = s
			rest = rest[3:]
			var okf bool
			if frac, rest, okf = fraction(rest); !okf {
				return 0, false, nil
			}
		}
		var okz bool
		if off, okz = zone(rest); !okz {
			return 0, false, nil
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || min > 59 || sec > 59 {
		return 0, true, errors.New("time has a field out of range")
	}
	secs := daysFromCivil(year, month, day)*86400 + int64(hour*3600+min*60+sec-off)
	if secs < minSec || secs > maxSec {
		return 0, true, errTimeRange
	}
	return secs*1e9 + int64(frac), true, nil
}

// fraction reads the fraction of a second that may start b ('.' or ','
// and digits) in nanoseconds: the first nine digits count, later ones are
// dropped (truncated, as time.Parse does). It returns the rest of b, and
// false for a separator without digits.
func fraction(b []byte) (frac int, rest []byte, ok bool) {
	if len(b) <= 1 || (b[0] != '.' && b[0] != ',') {
		return 0, b, true
	}
	i, n := 1, 0
	for i < len(b) && b[i]-'0' <= 9 {
		if n < 9 {
			frac = frac*10 + int(b[i]-'0')
			n++
		}
		i++
	}
	if i == 1 {
		return 0, b, false
	}
	return frac * fracScale[n], b[i:], true
}

// zone parses a trailing zone designator into its offset in seconds.
func zone(b []byte) (int, bool) {
	switch {
	case len(b) == 0:
		return 0, true
	case len(b) == 1 && (b[0] == 'Z' || b[0] == 'z'):
		return 0, true
	case b[0] != '+' && b[0] != '-':
		return 0, false
	}
	var h, m int
	var ok1, ok2 bool
	switch len(b) {
	case 3: // ±hh
		h, ok1 = digits(b[1:3])
		ok2 = true
	case 5: // ±hhmm
		h, ok1 = digits(b[1:3])
		m, ok2 = digits(b[3:5])
	case 6: // ±hh:mm
		h, ok1 = digits(b[1:3])
		m, ok2 = digits(b[4:6])
		ok2 = ok2 && b[3] == ':'
	}
	if !ok1 || !ok2 || h > 24 || m > 60 { // the bounds time.Parse applies
		return 0, false
	}
	off := h*3600 + m*60
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

// digits parses a short run of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
