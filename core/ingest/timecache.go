package ingest

import (
	"encoding/binary"
	"math/bits"
)

// hourCache parses the timestamps of one hour, the layout most log
// shippers write (2024-03-01T00:00:15.616942Z), without the whole ISO
// 8601 parse: the date and hour of the last timestamp are kept with
// their seconds since the epoch, and a timestamp that starts with the
// same bytes only has its minutes, seconds, fraction and zone read. A
// file's timestamps mostly share their hour with the one before, and the
// full parse was a twentieth of a projected decode under WebAssembly.
type hourCache struct {
	w0, w1 uint64 // the bytes 0-7 and 6-13 of the timestamp: "YYYY-MM-DDThh:"
	base   int64  // the date and hour in seconds since the epoch
	ok     bool
}

// parse returns the time of b and true when b starts with the cached
// date and hour and the rest is valid; false leaves b to parseTime, which
// settles it (and its errors).
func (c *hourCache) parse(b []byte) (int64, bool) {
	if !c.ok || len(b) < 19 || binary.LittleEndian.Uint64(b) != c.w0 || binary.LittleEndian.Uint64(b[6:]) != c.w1 || b[16] != ':' {
		return 0, false
	}
	m1, m0, s1, s0 := b[14]-'0', b[15]-'0', b[17]-'0', b[18]-'0'
	if m1 > 5 || m0 > 9 || s1 > 5 || s0 > 9 { // past 59, or not digits
		return 0, false
	}
	frac, rest, word := 0, b[19:], false
	if len(rest) > 1 && (rest[0] == '.' || rest[0] == ',') && cap(b) >= 28 {
		// One to seven fraction digits read as a word: b's bytes past
		// its end (within its capacity) are only looked at up to len(b).
		x := binary.LittleEndian.Uint64(b[20:28])
		if n := min(bits.TrailingZeros64(nonDigits(x))>>3, len(b)-20); n >= 1 && n <= 7 {
			frac, rest, word = int(wordDigits(x, n))*fracScale[n], b[20+n:], true
		}
	}
	if !word {
		var ok bool
		if frac, rest, ok = fraction(rest); !ok {
			return 0, false
		}
	}
	off := 0
	if len(rest) != 1 || rest[0]|0x20 != 'z' {
		var ok bool
		if off, ok = zone(rest); !ok {
			return 0, false
		}
	}
	secs := c.base + int64(int(m1)*600+int(m0)*60+int(s1)*10+int(s0)-off)
	if secs < minSec || secs > maxSec {
		return 0, false
	}
	return secs*1e9 + int64(frac), true
}

// fill caches the date and hour of b, a timestamp parseTime read as
// ISO 8601, when it has the layout parse takes.
func (c *hourCache) fill(b []byte) {
	if len(b) < 19 || b[13] != ':' || b[16] != ':' {
		return
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	if !ok1 || !ok2 || !ok3 || !ok4 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't' && b[10] != ' ') ||
		month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 {
		return
	}
	c.w0, c.w1 = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[6:])
	c.base = daysFromCivil(year, month, day)*86400 + int64(hour)*3600
	c.ok = true
}
