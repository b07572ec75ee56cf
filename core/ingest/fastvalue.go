package ingest

import (
	"encoding/binary"
	"math/bits"
)

// The word-at-a-time steps of objectFast over values it does not store:
// literals, numbers and whole objects and arrays.

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
