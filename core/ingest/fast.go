package ingest

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// errFast is objectFast's one error. It never leaves the package:
// lineFast undoes the event on any error and the bounded read decodes the
// line again with object, whose errors name what is wrong and where.
var errFast = errors.New("ingest: line left to the bounded read")

// objectFast is object for lineFast: the same values into the same
// nodes, in one loop that steps over a member Keep leaves out (its key
// matched against the predicted node a word at a time, a string value's
// closing quote found by stop sixteen bytes per step, a number's digits
// found a word at a time, a literal compared as a word, an object or
// array in skipFast) with at most one call per value. A projected decode
// spends most of its time there, and under WebAssembly, where Go's calls
// and taken branches are dear, the calls per member and per value of
// object, value, skip and key were two fifths of it. Anything out of the
// ordinary (an escape, a key it did not predict, a kept value) goes to
// the general code, and a line it cannot accept (a mistake anywhere) is
// left to the bounded read, so objectFast only ever accepts what object
// accepts, with the same values; TestLineFastMatchesBounded and
// FuzzLineFast hold it to that.
func (d *decoder) objectFast(parent int32, depth int) (empty bool, err error) {
	buf := d.buf
	i := d.pos + 1 // '{'
	if i < len(buf) && buf[i] <= ' ' {
		d.pos = i
		d.ws()
		i = d.pos
	}
	if i < len(buf) && buf[i] == '}' {
		d.pos = i + 1
		return true, nil
	}
	nodes := d.f.nodes
	autoTime := d.o.TimestampFormat == ""
	for {
		if i >= len(buf) || buf[i] != '"' {
			return false, errFast
		}
		// The key: the node that came next in the last event, or the one
		// before that (an optional field present or not), if its plain
		// key is the one here: its first eight bytes and, past seven
		// bytes, its last seven and the closing quote, compared as words.
		id := int32(-1)
		guess, alt := d.f.first, int32(-1)
		if d.prev >= 0 {
			guess, alt = nodes[d.prev].next, nodes[d.prev].alt
		}
		for guess >= 0 {
			n := &nodes[guess]
			if n.parent == parent && n.plainKey && i+9 <= len(buf) &&
				(binary.LittleEndian.Uint64(buf[i+1:])^n.keyWord)&n.keyMask == 0 {
				k := len(n.key)
				if k < 8 {
					id, i = guess, i+k+2
					break
				}
				if end := i + 1 + k; end+1 <= len(buf) && binary.LittleEndian.Uint64(buf[end-7:]) == n.keyTail &&
					(k <= 15 || string(buf[i+9:end-7]) == n.key[8:k-7]) {
					id, i = guess, end+1
					break
				}
			}
			guess, alt = alt, -1
		}
		if id < 0 {
			d.pos = i
			key, err := d.str()
			if err != nil {
				return false, err
			}
			id = d.f.child(parent, d.prev, key)
			nodes, i = d.f.nodes, d.pos
		}
		d.prev = id
		if i >= len(buf) || buf[i] != ':' {
			d.pos = i
			d.ws()
			if i = d.pos; i >= len(buf) || buf[i] != ':' {
				return false, errFast
			}
		}
		i++
		if i < len(buf) && buf[i] <= ' ' {
			d.pos = i
			d.ws()
			i = d.pos
		}
		if i >= len(buf) {
			return false, errFast
		}
		// The value.
		n := &nodes[id]
		c := buf[i]
		switch {
		case c == '"' && (n.skip || n.isTime && !n.keep && autoTime):
			// A skipped string, or the timestamp (_time) in the hour the
			// last one was in, without unescaping or storing it.
			j := stop(buf, i+1)
			if j < len(buf) && buf[j] == '"' {
				if n.skip {
					i = j + 1
					break
				}
				if ns, ok := d.hours.parse(buf[i+1 : j]); ok {
					d.b.SetTime(ns)
					i = j + 1
					break
				}
			}
			d.pos = i
			if n.skip {
				_, err = d.str() // an escape
			} else {
				err = d.member(id, depth)
			}
			if err != nil {
				return false, err
			}
			nodes, i = d.f.nodes, d.pos
		case c-'1' <= 8 && i+18 <= len(buf):
			// A number without sign, exponent or leading zero, its whole
			// and fraction digits found a word at a time: most numbers,
			// without a step per digit; a kept one of up to seven whole
			// and fraction digits converted from the words too.
			x := binary.LittleEndian.Uint64(buf[i:])
			w := bits.TrailingZeros64(nonDigits(x)) >> 3
			j, f, y := i+w, 0, uint64(0)
			if buf[j] == '.' {
				y = binary.LittleEndian.Uint64(buf[j+1:])
				f = bits.TrailingZeros64(nonDigits(y)) >> 3
				j += 1 + f
			}
			if buf[j-1]-'0' > 9 || buf[j]-'0' <= 9 || buf[j]|0x20 == 'e' {
				// "1.", or more digits than a word, or an exponent.
				if n.skip {
					if j = fastNumber(buf, i); j < 0 {
						return false, errFast
					}
					i = j
					break
				}
				d.pos = i
				if err := d.member(id, depth); err != nil {
					return false, err
				}
				nodes, i = d.f.nodes, d.pos
				break
			}
			if !n.skip {
				// w and f are at most 7 here: the digits are exact in u.
				u := wordDigits(x, w)
				if f == 0 {
					d.setInt(id, int64(u))
				} else {
					u = u*uint64(pow10[f]) + wordDigits(y, f)
					d.setFloat(id, float64(u)/pow10[f])
				}
				nodes = d.f.nodes
			}
			i = j
		case !n.skip:
			d.pos = i
			if c == '{' && !n.isMap && !n.isTime && depth+1 <= d.o.MaxDepth {
				empty, err := d.objectFast(id, depth+1)
				if err != nil {
					return false, err
				}
				if empty {
					d.setDynamic(id, map[string]any{})
				}
			} else if err := d.member(id, depth); err != nil {
				return false, err
			}
			nodes, i = d.f.nodes, d.pos
		case c-'0' <= 9 || c == '-':
			if i = fastNumber(buf, i); i < 0 {
				return false, errFast
			}
		case c == 't' || c == 'n':
			if i+4 > len(buf) || binary.LittleEndian.Uint32(buf[i:]) != trueWord && binary.LittleEndian.Uint32(buf[i:]) != nullWord {
				return false, errFast
			}
			i += 4
		case c == 'f':
			if i+5 > len(buf) || binary.LittleEndian.Uint32(buf[i+1:]) != alseWord {
				return false, errFast
			}
			i += 5
		default:
			if j := skipFast(buf, i); j >= 0 {
				i = j
				break
			}
			d.pos = i
			if err := d.skip(); err != nil {
				return false, err
			}
			i = d.pos
		}
		// After the member.
		if i < len(buf) && buf[i] <= ' ' {
			d.pos = i
			d.ws()
			i = d.pos
		}
		if i >= len(buf) {
			return false, errFast
		}
		switch buf[i] {
		case ',':
			i++
			if i < len(buf) && buf[i] <= ' ' {
				d.pos = i
				d.ws()
				i = d.pos
			}
		case '}':
			d.pos = i + 1
			return false, nil
		default:
			return false, errFast
		}
	}
}

// The literals as little-endian words, for objectFast ("false" is 'f'
// and "alse").
var (
	trueWord = binary.LittleEndian.Uint32([]byte("true"))
	nullWord = binary.LittleEndian.Uint32([]byte("null"))
	alseWord = binary.LittleEndian.Uint32([]byte("alse"))
)

// fastNumber returns the end of the JSON number at buf[i], or -1 when
// there is none (for objectFast, which then leaves the line to the
// bounded read).
func fastNumber(buf []byte, i int) int {
	if buf[i] == '-' {
		i++
	}
	switch {
	case i < len(buf) && buf[i] == '0':
		i++
	case i < len(buf) && buf[i]-'1' <= 8:
		i++
		for i < len(buf) && buf[i]-'0' <= 9 {
			i++
		}
	default:
		return -1
	}
	if i < len(buf) && buf[i] == '.' {
		i++
		if i >= len(buf) || buf[i]-'0' > 9 {
			return -1
		}
		for i < len(buf) && buf[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(buf) && buf[i]|0x20 == 'e' {
		i++
		if i < len(buf) && (buf[i] == '+' || buf[i] == '-') {
			i++
		}
		if i >= len(buf) || buf[i]-'0' > 9 {
			return -1
		}
		for i < len(buf) && buf[i]-'0' <= 9 {
			i++
		}
	}
	return i
}

// skipFast returns the end of the object or array at buf[i] when it is
// compact, valid JSON no more than 64 levels deep whose strings have no
// escapes, and -1 otherwise, for skip to settle (it may still be valid).
// It is skip without a call per key and value: a skipped field of nested
// objects or arrays under WebAssembly took a tenth of a projected decode.
func skipFast(buf []byte, i int) int {
	var objects uint64 // bit k is set when the container at level k+1 is an object
	depth := 0
	key := false // at an object key rather than a value
	for i < len(buf) {
		c := buf[i]
		switch {
		case c == '"':
			j := i + 1
			for {
				if j+16 > len(buf) {
					j = stop(buf, j)
					break
				}
				p := (*[16]byte)(buf[j : j+16])
				m0 := stopMask(binary.LittleEndian.Uint64(p[:8]))
				m1 := stopMask(binary.LittleEndian.Uint64(p[8:]))
				if m0|m1 != 0 {
					if m0 != 0 {
						j += bits.TrailingZeros64(m0) >> 3
					} else {
						j += 8 + bits.TrailingZeros64(m1)>>3
					}
					break
				}
				j += 16
			}
			if j >= len(buf) || buf[j] != '"' {
				return -1
			}
			i = j + 1
			if key {
				if i >= len(buf) || buf[i] != ':' {
					return -1
				}
				i++
				key = false
				continue
			}
		case key:
			return -1
		case c == '{' || c == '[':
			if depth == 64 {
				return -1
			}
			i++
			if i < len(buf) && buf[i] == c+2 { // '}' and ']' are '{'+2 and '['+2
				i++
				break
			}
			objects <<= 1
			if c == '{' {
				objects |= 1
				key = true
			}
			depth++
			continue
		case c-'0' <= 9 || c == '-':
			if i = fastNumber(buf, i); i < 0 {
				return -1
			}
		case c == 't' || c == 'n':
			if i+4 > len(buf) || binary.LittleEndian.Uint32(buf[i:]) != trueWord && binary.LittleEndian.Uint32(buf[i:]) != nullWord {
				return -1
			}
			i += 4
		case c == 'f':
			if i+5 > len(buf) || binary.LittleEndian.Uint32(buf[i+1:]) != alseWord {
				return -1
			}
			i += 5
		default:
			return -1
		}
		// After a value: close containers until one goes on.
		for {
			if depth == 0 {
				return i
			}
			if i >= len(buf) {
				return -1
			}
			c := buf[i]
			if c == ',' {
				i++
				key = objects&1 != 0
				break
			}
			end := byte(']')
			if objects&1 != 0 {
				end = '}'
			}
			if c != end {
				return -1
			}
			i++
			objects >>= 1
			depth--
		}
	}
	return -1
}

// nonDigits has the high bit set in each byte of x that is not an ASCII
// digit, exactly (no borrow crosses bytes), so the trailing zeros count
// the digits x starts with.
func nonDigits(x uint64) uint64 {
	hi := x&(lsb*0xF0) ^ lsb*0x30                  // zero when the high nibble is 3
	lo := (x&(lsb*0x0F) + lsb*0x06) & (lsb * 0xF0) // non-zero when the low nibble is above 9
	y := hi | lo
	return ((y&(lsb*0x7F) + lsb*0x7F) | y) & msb
}

// wordDigits is the value of the first n (1 to 7) bytes of x, ASCII
// digits: moved to the top of the word (the bytes below become zeros),
// then pairs, quads and octets of digits are summed up in place.
func wordDigits(x uint64, n int) uint64 {
	v := (x - lsb*'0') << (64 - 8*n) // a borrow only runs up, out of the word
	v = (v*10 + v>>8) & 0x00FF00FF00FF00FF
	v = (v*100 + v>>16) & 0x0000FFFF0000FFFF
	return (v*10000 + v>>32) & 0xFFFFFFFF
}
