package ingest

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The scanner works on d.buf from d.pos. Errors are *syntaxErr carrying
// the offset into d.buf; the format drivers turn them into positions.

func (d *decoder) errAt(off int, msg string) error { return &syntaxErr{off: off, msg: msg} }

// ws skips JSON whitespace. Compact JSON has none between tokens, so the
// first test (every whitespace byte is <= ' ') usually ends it.
func (d *decoder) ws() {
	buf, i := d.buf, d.pos
	for i < len(buf) && buf[i] <= ' ' {
		c := buf[i]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		if c == '\n' {
			d.nl = true // lineFast cannot take this line
		}
		i++
	}
	d.pos = i
}

// wsFrom is ws from i, for the fast paths that keep their position in a
// local; they test for a whitespace byte first (most members have none),
// so the common case costs one comparison.
func (d *decoder) wsFrom(i int) int {
	d.pos = i
	d.ws()
	return d.pos
}

// peek returns the byte at d.pos, or 0 at the end of the input.
func (d *decoder) peek() byte {
	if d.pos < len(d.buf) {
		return d.buf[d.pos]
	}
	return 0
}

// expect consumes c after optional whitespace.
func (d *decoder) expect(c byte, what string) error {
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == c {
		d.pos++
		return nil
	}
	return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" "+what)
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stopMask has the high bit set in the first byte of x (little-endian)
// that ends a run of plain string bytes: '"', '\\' or a control byte.
// Bits above the first hit may be spurious; only the lowest is used.
//
// It makes two tests of three: flipping bit 1 maps '"' (0x22) to 0x20 and
// the control bytes onto themselves, and no other byte below 0x21, so one
// "byte < 0x21" test finds both; the other finds '\\'. Each test is
// exact for the lowest byte it flags (a borrow only runs upwards, from a
// byte it rightly flags), which is the one used.
func stopMask(x uint64) uint64 {
	q := x ^ (lsb * 0x02)
	s := x ^ (lsb * '\\')
	return ((q-lsb*0x21)&^q | (s-lsb)&^s) & msb
}

// plain returns the index of the first '"', '\\' or control byte in
// buf[i:] (len(buf) when none) and whether a non-ASCII byte precedes it.
// It checks eight bytes per step.
func plain(buf []byte, i int) (int, bool) {
	var hi uint64
	for i+8 <= len(buf) {
		x := binary.LittleEndian.Uint64(buf[i:])
		if m := stopMask(x); m != 0 {
			k := bits.TrailingZeros64(m) >> 3
			hi |= x & (1<<(8*k) - 1) & msb
			return i + k, hi != 0
		}
		hi |= x & msb
		i += 8
	}
	for ; i < len(buf); i++ {
		c := buf[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		hi |= uint64(c & 0x80)
	}
	return i, hi != 0
}

// str scans the string at d.pos (an opening quote) and returns its
// unescaped bytes: a slice of the input, or of d.scratch when it had
// escapes; valid only until the next call. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does, so stored strings are always valid.
func (d *decoder) str() ([]byte, error) {
	buf := d.buf
	start := d.pos + 1
	j, hi := plain(buf, start)
	if j >= len(buf) {
		return nil, d.errAt(d.pos, "unterminated string")
	}
	switch c := buf[j]; {
	case c == '"':
		d.pos = j + 1
		s := buf[start:j]
		if hi && !utf8.Valid(s) {
			s = d.fixUTF8(s)
		}
		return s, nil
	case c == '\\':
		return d.strEscaped(start, j, hi)
	default:
		return nil, d.errAt(j, "invalid control character in string")
	}
}

// strEscaped finishes a string with escapes: buf[start:j] is plain and
// buf[j] is the first backslash.
func (d *decoder) strEscaped(start, j int, hi bool) ([]byte, error) {
	buf := d.buf
	out := append(d.scratch[:0], buf[start:j]...)
	i := j
	for i < len(buf) {
		switch c := buf[i]; {
		case c == '"':
			d.pos = i + 1
			if hi && !utf8.Valid(out) {
				d.scratch = out
				return d.fixUTF8(out), nil
			}
			d.scratch = out
			return out, nil
		case c == '\\':
			var err error
			out, i, err = d.escape(out, i)
			if err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, d.errAt(i, "invalid control character in string")
		default:
			k, h := plain(buf, i)
			hi = hi || h
			out = append(out, buf[i:k]...)
			i = k
		}
	}
	return nil, d.errAt(start-1, "unterminated string")
}

// escape decodes the escape sequence at buf[i] (a backslash) onto out.
func (d *decoder) escape(out []byte, i int) ([]byte, int, error) {
	buf := d.buf
	if i+1 >= len(buf) {
		return out, i, d.errAt(i, "unterminated string")
	}
	switch buf[i+1] {
	case '"', '\\', '/':
		return append(out, buf[i+1]), i + 2, nil
	case 'b':
		return append(out, '\b'), i + 2, nil
	case 'f':
		return append(out, '\f'), i + 2, nil
	case 'n':
		return append(out, '\n'), i + 2, nil
	case 'r':
		return append(out, '\r'), i + 2, nil
	case 't':
		return append(out, '\t'), i + 2, nil
	case 'u':
		r := hex4(buf, i+2)
		if r < 0 {
			return out, i, d.errAt(i, "invalid \\u escape in string")
		}
		i += 6
		if utf16.IsSurrogate(r) {
			// A valid pair is one rune; a lone half is U+FFFD (as encoding/json).
			if i+1 < len(buf) && buf[i] == '\\' && buf[i+1] == 'u' {
				if r2 := hex4(buf, i+2); r2 >= 0 {
					if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
						return utf8.AppendRune(out, p), i + 6, nil
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(out, r), i, nil
	}
	return out, i, d.errAt(i, "invalid escape sequence in string")
}

// hex4 decodes the four hex digits at buf[i:], or returns -1.
func hex4(buf []byte, i int) rune {
	if i+4 > len(buf) {
		return -1
	}
	var r rune
	for _, c := range buf[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// fixUTF8 replaces each invalid byte of s with U+FFFD, into a fresh part of
// d.scratch (s may itself be in d.scratch).
func (d *decoder) fixUTF8(s []byte) []byte {
	n := len(d.scratch)
	out := d.scratch
	if n > 0 && &s[0] != &out[0] {
		n = 0 // s is not in scratch: reuse all of it
		out = out[:0]
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		out = utf8.AppendRune(out, r) // RuneError for an invalid byte
		s = s[size:]
	}
	d.scratch = out
	return out[n:]
}

// number scans the JSON number at d.pos. An integer that fits int64 is
// returned as an int; anything with a fraction or exponent, or too big,
// as a float.
func (d *decoder) number() (iv int64, fv float64, isInt bool, err error) {
	buf := d.buf
	start := d.pos
	i := start
	neg := i < len(buf) && buf[i] == '-'
	if neg {
		i++
	}
	if i >= len(buf) {
		return 0, 0, false, d.errAt(i, "invalid "+describe(buf, i)+" in number")
	}
	var u uint64
	digits := 0
	switch c := buf[i]; {
	case c == '0':
		i++
		digits = 1
	case '1' <= c && c <= '9':
		for i < len(buf) && buf[i]-'0' <= 9 {
			u = u*10 + uint64(buf[i]-'0')
			i++
			digits++
		}
	default:
		return 0, 0, false, d.errAt(i, "invalid "+describe(buf, i)+" looking for beginning of value")
	}
	float := false
	fracDigits := 0
	if i < len(buf) && buf[i] == '.' {
		i++
		if i >= len(buf) || buf[i]-'0' > 9 {
			return 0, 0, false, d.errAt(i, "invalid "+describe(buf, i)+" after decimal point in number")
		}
		for i < len(buf) && buf[i]-'0' <= 9 {
			u = u*10 + uint64(buf[i]-'0') // may overflow; only used when digits stay <= 15
			i++
			fracDigits++
		}
		float = true
	}
	if i < len(buf) && (buf[i] == 'e' || buf[i] == 'E') {
		i++
		if i < len(buf) && (buf[i] == '+' || buf[i] == '-') {
			i++
		}
		if i >= len(buf) || buf[i]-'0' > 9 {
			return 0, 0, false, d.errAt(i, "invalid "+describe(buf, i)+" in exponent of number")
		}
		for i < len(buf) && buf[i]-'0' <= 9 {
			i++
		}
		float = true
		fracDigits = -1 // an exponent: leave it to ParseFloat
	}
	d.pos = i
	if float && fracDigits > 0 && digits+fracDigits <= 15 {
		// Both operands are exact in float64 and IEEE division rounds
		// correctly, so this equals ParseFloat (the classic fast path).
		f := float64(u) / pow10[fracDigits]
		if neg {
			f = -f
		}
		return 0, f, false, nil
	}
	if !float && digits <= 19 {
		// Up to 19 digits never overflow u (MaxUint64 has 20).
		if !neg && u <= 1<<63-1 {
			return int64(u), 0, true, nil
		}
		if neg && u <= 1<<63 {
			return int64(-u), 0, true, nil // -(1<<63) wraps to MinInt64
		}
	}
	// ParseFloat does not keep the string; overflow gives ±Inf, kept as is.
	f, _ := strconv.ParseFloat(unsafe.String(&buf[start], i-start), 64)
	return 0, f, false, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// literal consumes want (true, false or null) at d.pos.
func (d *decoder) literal(want string) error {
	buf, i := d.buf, d.pos
	if len(buf)-i >= len(want) && string(buf[i:i+len(want)]) == want {
		d.pos = i + len(want)
		return nil
	}
	for k := 0; k < len(want); k++ {
		if i+k >= len(buf) || buf[i+k] != want[k] {
			return d.errAt(i+k, "invalid "+describe(buf, i+k)+" in literal "+want)
		}
	}
	return nil
}
