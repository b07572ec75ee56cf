package ingest

import (
	"bytes"
	"fmt"
)

// Splunk's HTTP Event Collector (HEC) sends envelopes, not events:
//
//	{"time":1426279439,"host":"h","source":"s","sourcetype":"t","index":"logs",
//	 "event":{"message":"hi"},"fields":{"region":"eu"}}
//
// back to back or one per line. HECEvents rewrites a body of them into
// NDJSON, one line per envelope, which Decode then stores like any other
// ingest body: the envelope is only looked at, never decoded into values,
// so the conversion costs a scan and a copy. That pair is the reference;
// DecodeHEC (hec_decode.go) stores the same rows without the copy and
// the second parse, and falls back to it. Axiom's page
// (send-data/splunk-hec.mdx) fixes the mapping:
//
//   - "event": an object's members become the event's fields; any other
//     value (a string, as Splunk's loggers send) is stored as _raw.
//   - "fields": its members are merged in as top-level fields.
//   - "time": epoch seconds (fractional), milliseconds or an RFC 3339
//     string becomes _time, by Decode's rules; absent or null, the ingest
//     time.
//   - every other key ("host", "source", "sourcetype", "index", ...) is
//     kept as a field of that name.
//
// Members are written in that order (event, fields, envelope keys, _time)
// and Decode keeps the last of a repeated name, so the envelope's host
// wins over a "host" inside the event, as Splunk's metadata does.

// HEC status codes (Splunk's "Troubleshoot HTTP Event Collector" table)
// that a body itself can earn.
const (
	HECInvalidFormat = 6  // not a JSON envelope
	HECIncorrectIdx  = 7  // "index" is not a string
	HECEventRequired = 12 // an envelope without "event"
	HECEventBlank    = 13 // "event" is null or ""
	HECFieldsInvalid = 15 // "fields" is not an object
)

// HECError is a body HEC refuses whole; nothing of it is stored.
type HECError struct {
	Code   int // the HEC status code (HECInvalidFormat, ...)
	Event  int // the envelope at fault, from 0 (Splunk's invalid-event-number)
	Offset int // byte offset into the body
	Msg    string
}

func (e *HECError) Error() string {
	return fmt.Sprintf("event %d (byte %d): %s", e.Event, e.Offset, e.Msg)
}

// HECBatch is what HECEvents found.
type HECBatch struct {
	Events int
	// Index is the first envelope's "index", "" when it has none: the
	// dataset of a request that names none in its query.
	Index string
}

// envelope holds the spans of one envelope's members in the body.
type envelope struct {
	event, fields, time span
	index               span   // the value of "index", also in other
	other               []span // whole "key":value members
	close               int    // just past the closing brace
}

type span struct{ start, end int }

func (s span) ok() bool { return s.end > s.start }

// HECEvents appends to dst one NDJSON line per HEC envelope of body and
// returns it. A body that is not a sequence of JSON objects, or an
// envelope HEC refuses (no event, a blank one, fields that are not an
// object, an index that is not a string), is a *HECError and nothing is
// returned: HEC answers it with 400 and the client does not retry.
func HECEvents(dst, body []byte) ([]byte, HECBatch, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.buf, d.pos = body, 0
	var b HECBatch
	var env envelope
	for {
		d.ws()
		if d.pos >= len(body) {
			return dst, b, nil
		}
		if body[d.pos] != '{' {
			return nil, b, d.hecErr(HECInvalidFormat, b.Events, d.pos, "expected an event envelope (a JSON object), found "+describe(body, d.pos))
		}
		start := d.pos
		d.nl = false // set by ws when it steps over a newline
		if err := d.envelope(&env); err != nil {
			return nil, b, d.hecWrap(err, b.Events)
		}
		if err := d.checkEnvelope(&env, &b, start); err != nil {
			return nil, b, err
		}
		dst = appendEnvelope(dst, body, &env, d.nl)
		b.Events++
	}
}

// envelope reads the object at d.pos into env, validating every value.
func (d *decoder) envelope(env *envelope) error {
	*env = envelope{other: env.other[:0]}
	d.pos++
	d.ws()
	if d.peek() == '}' {
		d.pos++
		env.close = d.pos
		return nil
	}
	for {
		d.ws()
		keyStart := d.pos
		if d.peek() != '"' {
			return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" looking for beginning of object key string")
		}
		k, err := d.str()
		if err != nil {
			return err
		}
		var which *span
		isIndex := false
		switch string(k) {
		case "event":
			which = &env.event
		case "fields":
			which = &env.fields
		case "time":
			which = &env.time
		case "index":
			isIndex = true
		}
		if err := d.expect(':', "after object key"); err != nil {
			return err
		}
		d.ws()
		vStart := d.pos
		if err := d.skipValue(); err != nil {
			return err
		}
		if which != nil {
			*which = span{vStart, d.pos}
		} else {
			env.other = append(env.other, span{keyStart, d.pos})
		}
		if isIndex {
			env.index = span{vStart, d.pos}
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			env.close = d.pos
			return nil
		default:
			return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after object key:value pair")
		}
	}
}

// skipValue is skip, through skipFast for a compact object or array
// (the event, mostly): one loop without a call per member.
func (d *decoder) skipValue() error {
	if c := d.peek(); c == '{' || c == '[' {
		if j := skipFast(d.buf, d.pos); j >= 0 {
			d.pos = j
			return nil
		}
	}
	return d.skip()
}

// checkEnvelope enforces what HEC requires of an envelope and takes the
// batch's index from the first.
func (d *decoder) checkEnvelope(env *envelope, b *HECBatch, start int) error {
	body := d.buf
	switch {
	case !env.event.ok():
		return d.hecErr(HECEventRequired, b.Events, start, `the envelope has no "event"`)
	case isBlank(body[env.event.start:env.event.end]):
		return d.hecErr(HECEventBlank, b.Events, env.event.start, `"event" is empty`)
	case env.fields.ok() && body[env.fields.start] != '{' && !isNull(body[env.fields.start:env.fields.end]):
		return d.hecErr(HECFieldsInvalid, b.Events, env.fields.start, `"fields" must be an object, not `+jsonKind(body[env.fields.start]))
	}
	if env.index.ok() {
		v := env.index.start
		if body[v] != '"' {
			return d.hecErr(HECIncorrectIdx, b.Events, v, `"index" must be a string, not `+jsonKind(body[v]))
		}
		if b.Events == 0 {
			d.pos = v
			s, _ := d.str() // read once already: no error
			b.Index = string(s)
		}
	}
	d.pos = env.close
	return nil
}

// isBlank reports whether an event value is null or an empty string.
func isBlank(v []byte) bool {
	return isNull(v) || bytes.Equal(v, []byte(`""`))
}

func isNull(v []byte) bool { return bytes.Equal(v, []byte("null")) }

// jsonKind names the JSON type of the value starting with c.
func jsonKind(c byte) string {
	if c == '{' {
		return "an object"
	}
	return valueKind(c)
}

// appendEnvelope writes env as one NDJSON line; nl says whether the
// envelope had a newline between tokens (skipFast takes only compact
// values, and every other step over whitespace is ws, which notes one).
func appendEnvelope(dst, body []byte, env *envelope, nl bool) []byte {
	lineStart := len(dst)
	dst = append(dst, '{')
	if ev := body[env.event.start:env.event.end]; ev[0] == '{' {
		dst = append(dst, inner(ev)...)
	} else {
		dst = append(dst, `"_raw":`...)
		dst = append(dst, ev...)
	}
	if env.fields.ok() && body[env.fields.start] == '{' {
		dst = appendMember(dst, lineStart, inner(body[env.fields.start:env.fields.end]))
	}
	for _, m := range env.other {
		dst = appendMember(dst, lineStart, body[m.start:m.end])
	}
	if env.time.ok() && !isNull(body[env.time.start:env.time.end]) {
		dst = appendMember(dst, lineStart, []byte(`"_time":`))
		dst = append(dst, body[env.time.start:env.time.end]...)
	}
	dst = append(dst, '}')
	// A newline inside a value can only be whitespace between tokens (a
	// raw one in a string is invalid JSON); the line must not break there.
	for line := dst[lineStart:]; nl; {
		i := bytes.IndexByte(line, '\n')
		if i < 0 {
			break
		}
		line[i] = ' '
		line = line[i+1:]
	}
	return append(dst, '\n')
}

// appendMember appends m to the object begun at dst[lineStart], after a
// comma unless it is the first member.
func appendMember(dst []byte, lineStart int, m []byte) []byte {
	if len(m) == 0 {
		return dst
	}
	if len(dst) > lineStart+1 {
		dst = append(dst, ',')
	}
	return append(dst, m...)
}

// inner is an object's members without its braces and the whitespace
// inside them.
func inner(obj []byte) []byte {
	return bytes.TrimSpace(obj[1 : len(obj)-1])
}

func (d *decoder) hecErr(code, event, off int, msg string) *HECError {
	return &HECError{Code: code, Event: event, Offset: off, Msg: msg}
}

// hecWrap turns a scanner error in envelope n into a *HECError.
func (d *decoder) hecWrap(err error, n int) error {
	if se, ok := err.(*syntaxErr); ok {
		return d.hecErr(HECInvalidFormat, n, se.off, "invalid JSON: "+se.msg)
	}
	return err
}

// HECRaw appends to dst one NDJSON line per non-blank line of a
// /services/collector/raw body: {"_raw":"<the line>",<meta>}, where meta
// is members already in JSON ("host":"h",...) or empty. A trailing CR is
// not part of the line. It returns dst and the number of events.
func HECRaw(dst, body, meta []byte) ([]byte, int) {
	n := 0
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dst = append(dst, `{"_raw":`...)
		dst = AppendJSONString(dst, line)
		if len(meta) > 0 {
			dst = append(dst, ',')
			dst = append(dst, meta...)
		}
		dst = append(dst, "}\n"...)
		n++
	}
	return dst, n
}

// AppendJSONString appends s to dst as a JSON string. Invalid UTF-8 is
// copied as it is: Decode turns it into U+FFFD as it reads the string.
func AppendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	for len(s) > 0 {
		i := stop(s, 0)
		dst = append(dst, s[:i]...)
		if i == len(s) {
			break
		}
		switch c := s[i]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&15])
		}
		s = s[i+1:]
	}
	return append(dst, '"')
}

const hexDigit = "0123456789abcdef"
