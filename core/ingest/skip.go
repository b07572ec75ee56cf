package ingest

import (
	"encoding/binary"
	"math/bits"
)

// Skipping is what a projected decode (Options.Keep) spends most of its
// time on: the fields a query does not read still have to be checked for
// syntax, so a broken line fails exactly as in a full decode, but their
// values are never unescaped, copied, converted or stored.

// skipMember skips the value of a field Keep leaves out. Strings and
// numbers, most of the values, are handled without entering skip's
// container loop.
func (d *decoder) skipMember() error {
	switch c := d.peek(); {
	case c == '"':
		return d.skipStr()
	case c == '-' || c-'0' <= 9:
		return d.skipNumber()
	}
	return d.skip()
}

// skipStr skips the string at d.pos (an opening quote). A string without
// escapes ends at the first stop byte plain finds; one with escapes goes
// through str, whose errors (a bad escape, a control byte, no closing
// quote) are the ones a full decode reports. Invalid UTF-8 is not an
// error in either, so it is not looked at here.
func (d *decoder) skipStr() error {
	j := stop(d.buf, d.pos+1)
	if j < len(d.buf) && d.buf[j] == '"' {
		d.pos = j + 1
		return nil
	}
	_, err := d.str()
	return err
}

// stop is plain without the non-ASCII test, sixteen bytes per step: the
// index of the first '"', '\\' or control byte in buf[i:], or len(buf).
//
// Both words of a step are tested before one branch on either (the
// branch on where a string ends is the one the CPU mispredicts), and the
// step reads through one bounds-checked array pointer.
func stop(buf []byte, i int) int {
	for i+16 <= len(buf) {
		p := (*[16]byte)(buf[i : i+16])
		m0 := stopMask(binary.LittleEndian.Uint64(p[:8]))
		m1 := stopMask(binary.LittleEndian.Uint64(p[8:]))
		if m0|m1 != 0 {
			if m0 != 0 {
				return i + bits.TrailingZeros64(m0)>>3
			}
			return i + 8 + bits.TrailingZeros64(m1)>>3
		}
		i += 16
	}
	for ; i < len(buf); i++ {
		if c := buf[i]; c == '"' || c == '\\' || c < 0x20 {
			break
		}
	}
	return i
}

// skipNumber checks the grammar of the number at d.pos and steps over it
// without converting it. The errors are number's.
func (d *decoder) skipNumber() error {
	buf, i := d.buf, d.pos
	if i < len(buf) && buf[i] == '-' {
		i++
	}
	switch {
	case i < len(buf) && buf[i] == '0':
		i++
	case i < len(buf) && buf[i]-'1' <= 8:
		i = skipDigits(buf, i+1)
	default:
		_, _, _, err := d.number()
		return err
	}
	if i < len(buf) && buf[i] == '.' {
		if i+1 >= len(buf) || buf[i+1]-'0' > 9 {
			_, _, _, err := d.number()
			return err
		}
		i = skipDigits(buf, i+2)
	}
	if i < len(buf) && (buf[i] == 'e' || buf[i] == 'E') {
		k := i + 1
		if k < len(buf) && (buf[k] == '+' || buf[k] == '-') {
			k++
		}
		if k >= len(buf) || buf[k]-'0' > 9 {
			_, _, _, err := d.number()
			return err
		}
		i = skipDigits(buf, k+1)
	}
	d.pos = i
	return nil
}

// skipDigits returns the index of the first non-digit at or after i.
func skipDigits(buf []byte, i int) int {
	for i < len(buf) && buf[i]-'0' <= 9 {
		i++
	}
	return i
}
