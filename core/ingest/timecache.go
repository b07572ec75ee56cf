package ingest

import "encoding/binary"

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
	mm, ok1 := digits(b[14:16])
	ss, ok2 := digits(b[17:19])
	if !ok1 || !ok2 || mm > 59 || ss > 59 {
		return 0, false
	}
	frac, rest, ok := fraction(b[19:])
	if !ok {
		return 0, false
	}
	off, ok := zone(rest)
	if !ok {
		return 0, false
	}
	secs := c.base + int64(mm*60+ss-off)
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
