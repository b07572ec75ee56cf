package server

import (
	"bytes"
	"slices"

	"github.com/segmentio/asm/base64"
)

// Every delivery Firehose sends has one shape:
//
//	{"requestId":"…","timestamp":1700000000000,"records":[{"data":"…"},…]}
//
// scanDelivery reads that shape in one pass, decoding each record's
// base64 into the NDJSON buffer as it is found: decoding the envelope
// into a records slice first and then each record (sonic, then a second
// walk) was a third of the door's cost over plain NDJSON. Anything else
// (other keys, escapes in a string, a number that is not an integer,
// JSON that does not parse, a record that does not decode) makes it give
// up, and the body is read again by the general decoder, whose answers
// (the events, or the 400 or 413 and its message) are then the door's:
// the scan only ever takes bodies the general path stores the same way.

// fhScanner walks a delivery body.
type fhScanner struct {
	b []byte
	p int
}

func (s *fhScanner) ws() {
	for s.p < len(s.b) {
		switch s.b[s.p] {
		case ' ', '\t', '\n', '\r':
			s.p++
		default:
			return
		}
	}
}

// lit steps over c (after blanks) and reports whether it was there.
func (s *fhScanner) lit(c byte) bool {
	s.ws()
	if s.p < len(s.b) && s.b[s.p] == c {
		s.p++
		return true
	}
	return false
}

// str reads a string without escapes, returning its bytes; ok is false
// for any other value.
func (s *fhScanner) str() (v []byte, ok bool) {
	v, ok = s.quoted()
	return v, ok && bytes.IndexByte(v, '\\') < 0
}

// quoted returns the bytes up to the next quote, which end the string
// only if it has no backslash: a record's data is looked at once, by its
// decoder, which refuses a backslash.
func (s *fhScanner) quoted() ([]byte, bool) {
	if !s.lit('"') {
		return nil, false
	}
	j := bytes.IndexByte(s.b[s.p:], '"')
	if j < 0 {
		return nil, false
	}
	v := s.b[s.p : s.p+j]
	s.p += j + 1
	return v, true
}

// plainText reports whether v has no control characters (JSON forbids
// them raw in a string).
func plainText(v []byte) bool {
	for _, c := range v {
		if c < 0x20 {
			return false
		}
	}
	return true
}

// integer steps over an integer that fits an int64 (the timestamp).
func (s *fhScanner) integer() bool {
	s.ws()
	start := s.p
	if s.p < len(s.b) && s.b[s.p] == '-' {
		s.p++
	}
	digits := s.p
	for s.p < len(s.b) && s.b[s.p] >= '0' && s.b[s.p] <= '9' {
		s.p++
	}
	n := s.p - digits
	if n == 0 || n > 18 || n > 1 && s.b[digits] == '0' {
		return false
	}
	if s.p < len(s.b) {
		switch s.b[s.p] {
		case '.', 'e', 'E':
			return false
		}
	}
	return s.p > start
}

// scanDelivery appends the events of body's records to b.out as events
// does, and returns them with the body's requestId; ok is false when the
// body is not in the one shape this reads (nothing is then decided).
func (b *firehoseBuf) scanDelivery(body []byte, limit int64) (events, id []byte, ok bool) {
	s := fhScanner{b: body}
	// The records are most of the body and decode to 3/4 of their size:
	// one allocation, as events makes (a plain line wrapped as
	// {"message":…} may still grow it).
	out := slices.Grow(b.out[:0], base64.StdEncoding.DecodedLen(len(body))+64)
	defer func() { b.out = out[:0] }()
	if !s.lit('{') {
		return nil, nil, false
	}
	var seen [3]bool // requestId, timestamp, records
	for more := !s.lit('}'); more; {
		key, ok := s.str()
		if !ok || !s.lit(':') {
			return nil, nil, false
		}
		var k int
		switch string(key) {
		case "requestId":
			id, ok = s.str()
			ok = ok && plainText(id)
		case "timestamp":
			k, ok = 1, s.integer()
		case "records":
			k = 2
			out, ok = b.scanRecords(&s, out, limit)
		default:
			return nil, nil, false
		}
		if !ok || seen[k] {
			return nil, nil, false
		}
		seen[k] = true
		if more = !s.lit('}'); more && !s.lit(',') {
			return nil, nil, false
		}
	}
	if s.ws(); s.p != len(body) {
		return nil, nil, false
	}
	return out, id, true
}

// scanRecords reads the records array, appending each record's events.
func (b *firehoseBuf) scanRecords(s *fhScanner, out []byte, limit int64) ([]byte, bool) {
	if !s.lit('[') {
		return out, false
	}
	if s.lit(']') {
		return out, true
	}
	for i := 0; ; i++ {
		if !s.lit('{') {
			return out, false
		}
		key, ok := s.str()
		if !ok || string(key) != "data" || !s.lit(':') {
			return out, false
		}
		data, ok := s.quoted()
		if !ok || !s.lit('}') {
			return out, false
		}
		if out, ok = b.scanRecord(out, data, i, limit); !ok || int64(len(out)) > limit {
			return out, false
		}
		if s.lit(']') {
			return out, true
		}
		if !s.lit(',') {
			return out, false
		}
	}
}

// scanRecord appends the events of one record as record does, its
// base64 decoded by decodeBase64; ok is false when the data is not
// base64 as decodeBase64 takes it or the record fails.
func (b *firehoseBuf) scanRecord(out, data []byte, i int, limit int64) ([]byte, bool) {
	start := len(out)
	n := len(data)/4*3 + 3
	out = slices.Grow(out, n+1)[:start+n]
	m, ok := decodeBase64(out[start:], data)
	if !ok {
		return out[:start], false
	}
	out, err := b.decoded(out, start, m, i, limit)
	return out, err == nil
}

// decodeBase64 decodes standard base64, padded or not, into dst (room
// for len(src)/4*3+3 bytes) and reports how many bytes it wrote. Unlike
// the library's decoders it takes no line breaks (JSON strings hold none
// raw) and no padding but at the end. The SIMD decoder takes all but the
// last few quanta (it hands the rest of its input to encoding/base64,
// a fifth of a short record's decode, so it is given a length whose rest
// is short and has no padding); a table decodes the tail.
func decodeBase64(dst, src []byte) (int, bool) {
	n := 0
	if len(src) >= 64 {
		head := (len(src)-20)/32*32 + 16 // the SIMD loop stops with 16 left
		m, err := base64.StdEncoding.Decode(dst, src[:head])
		if err != nil || m != head/4*3 {
			return 0, false // a line break skipped, or not base64
		}
		n, src = m, src[head:]
	}
	for len(src) > 4 {
		v := b64Table[0][src[0]] | b64Table[1][src[1]] | b64Table[2][src[2]] | b64Table[3][src[3]]
		if v>>31 != 0 {
			return 0, false
		}
		dst[n], dst[n+1], dst[n+2] = byte(v>>16), byte(v>>8), byte(v)
		n, src = n+3, src[4:]
	}
	return b64Last(dst, n, src)
}

// b64Last decodes the last quantum: 2 to 4 characters, "==" or "="
// padding the short ones to 4.
func b64Last(dst []byte, n int, src []byte) (int, bool) {
	switch {
	case len(src) == 4 && src[3] == '=' && src[2] == '=':
		src = src[:2]
	case len(src) == 4 && src[3] == '=':
		src = src[:3]
	}
	var q [4]byte
	copy(q[:], "AAAA")
	copy(q[:], src)
	v := b64Table[0][q[0]] | b64Table[1][q[1]] | b64Table[2][q[2]] | b64Table[3][q[3]]
	if v>>31 != 0 || len(src) == 1 {
		return 0, false
	}
	switch len(src) {
	case 0:
	case 2:
		dst[n] = byte(v >> 16)
		n++
	case 3:
		dst[n], dst[n+1] = byte(v>>16), byte(v>>8)
		n += 2
	default:
		dst[n], dst[n+1], dst[n+2] = byte(v>>16), byte(v>>8), byte(v)
		n += 3
	}
	return n, true
}

// b64Table holds each character's 6 bits in the place of its position
// in a quantum; a character outside the alphabet sets bit 31.
var b64Table = func() (t [4][256]uint32) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		for c := range t[i] {
			t[i][c] = 1 << 31
		}
		for v, c := range []byte(alphabet) {
			t[i][c] = uint32(v) << (18 - 6*i)
		}
	}
	return t
}()
