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
		i = d.wsFrom(i)
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
			i = d.wsFrom(i)
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
			i = d.wsFrom(i)
		}
		if i >= len(buf) {
			return false, errFast
		}
		switch buf[i] {
		case ',':
			i++
			if i < len(buf) && buf[i] <= ' ' {
				i = d.wsFrom(i)
			}
		case '}':
			d.pos = i + 1
			return false, nil
		default:
			return false, errFast
		}
	}
}
