package ingest

import (
	"bytes"
)

// decodeJSON decodes a JSON body: an array of events, or a stream of
// arrays and objects one after another (a single object is one event).
// Elements that are not objects fail; any syntax error rejects the body,
// because after one the rest cannot be read reliably.
func (d *decoder) decodeJSON(body []byte) error {
	d.buf, d.pos = body, 0
	if bytes.HasPrefix(body, bom) {
		d.pos = len(bom)
	}
	d.start, d.stop = d.pos, len(body)
	n := 0 // events seen, for failure messages
	for {
		d.ws()
		switch d.peek() {
		case 0:
			if d.pos >= len(body) {
				return nil
			}
			return d.jsonErr(d.errAt(d.pos, "invalid "+describe(body, d.pos)+" looking for beginning of value"))
		case '[':
			d.pos++
			d.ws()
			if d.peek() == ']' {
				d.pos++
				continue
			}
			for {
				n++
				if err := d.element(n); err != nil {
					return d.jsonErr(err)
				}
				d.ws()
				c := d.peek()
				if c == ']' {
					d.pos++
					break
				}
				if c != ',' {
					return d.jsonErr(d.errAt(d.pos, "invalid "+describe(body, d.pos)+" after array element"))
				}
				d.pos++
			}
		default:
			n++
			if err := d.element(n); err != nil {
				return d.jsonErr(err)
			}
		}
	}
}

// element decodes one event, or counts a non-object as a failure.
func (d *decoder) element(n int) error {
	d.ws()
	c := d.peek()
	if c != '{' {
		if err := d.skip(); err != nil {
			return err
		}
		d.failure(fmtEvent("event", n, "not a JSON object but "+valueKind(c)))
		return nil
	}
	d.begin()
	if err := d.event(); err != nil {
		d.abort()
		return err
	}
	d.end("event", n)
	return nil
}

// jsonErr locates a scanner error in the body.
func (d *decoder) jsonErr(err error) error {
	if se, ok := err.(*syntaxErr); ok {
		return locate(d.buf, se.off, se.msg)
	}
	return err
}

// bom is the UTF-8 byte order mark some tools put before a body.
var bom = []byte{0xEF, 0xBB, 0xBF}

// decodeNDJSON decodes one event per line. A line that is not a JSON
// object fails on its own; the body is rejected only when no line at all
// is valid JSON.
func (d *decoder) decodeNDJSON(body []byte) error {
	pos := 0
	if bytes.HasPrefix(body, bom) {
		pos = len(bom)
	}
	d.start, d.stop = pos, len(body)
	var first *syntaxErr
	valid := false
	for line := 1; pos < len(body); line++ {
		if next, ok := d.lineFast(body, pos, line); ok {
			if next < 0 {
				break // only blanks were left
			}
			pos = next
			valid = valid || d.lineOK
			continue
		}
		end := len(body)
		if nl := bytes.IndexByte(body[pos:], '\n'); nl >= 0 {
			end = pos + nl
		}
		d.buf, d.pos = body[:end], pos
		pos = end + 1
		d.ws()
		if d.pos == end {
			continue // blank line
		}
		err := d.line(line)
		if err == nil {
			valid = true
			continue
		}
		se := err.(*syntaxErr)
		if first == nil {
			first = se
		}
		l := locate(body, se.off, se.msg)
		d.failure(fmtEvent("line", line, "invalid JSON at column "+itoa(l.Column)+": "+se.msg))
	}
	if !valid && first != nil {
		return locate(body, first.off, first.msg)
	}
	return nil
}

// boundedLines turns lineFast off, so tests can hold the two ways of
// reading a line to the same results.
var boundedLines = false

// lineFast decodes the line at body[pos:] without first finding its end:
// looking for the newline was a pass over every byte before the parse
// made its own, a twentieth of a projected decode. It only takes the
// lines whose outcome cannot depend on where the line ends: a blank line,
// or an object that parses without error, with no newline in the
// whitespace between its tokens (d.nl) and only blanks after it up to
// the newline. Inside a valid object, a newline can only be such
// whitespace (a raw one in a string is an error), so the object is the
// same one the bounded read sees. It returns the offset of the next line
// (-1: the body ends in blanks) and true, or false having undone the
// event, for the bounded read to decode the line and say what is wrong.
func (d *decoder) lineFast(body []byte, pos, line int) (int, bool) {
	if boundedLines {
		return 0, false
	}
	i := lineBlanks(body, pos)
	d.lineOK = false
	switch {
	case i == len(body):
		return -1, true
	case body[i] == '\n':
		return i + 1, true
	case body[i] != '{':
		return 0, false
	}
	d.buf, d.pos, d.nl = body, i, false
	d.begin()
	if _, err := d.objectFast(-1, 1); err == nil && !d.nl {
		if j := lineBlanks(body, d.pos); j == len(body) || body[j] == '\n' {
			d.end("line", line)
			d.lineOK = true
			return j + 1, true
		}
	}
	d.abort()
	return 0, false
}

// lineBlanks returns the index of the first byte at or after i that is
// not whitespace other than a newline.
func lineBlanks(body []byte, i int) int {
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r') {
		i++
	}
	return i
}

// line decodes the value at d.pos, which must fill the rest of the line.
func (d *decoder) line(n int) error {
	if d.peek() != '{' {
		c := d.peek()
		if err := d.skip(); err != nil {
			return err
		}
		if err := d.lineEnd(); err != nil {
			return err
		}
		d.failure(fmtEvent("line", n, "not a JSON object but "+valueKind(c)))
		return nil
	}
	d.begin()
	err := d.event()
	if err == nil {
		err = d.lineEnd()
	}
	if err != nil {
		d.abort()
		return err
	}
	d.end("line", n)
	return nil
}

// lineEnd checks that only whitespace follows the value on its line.
func (d *decoder) lineEnd() error {
	d.ws()
	if d.pos < len(d.buf) {
		return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after the event (one JSON object per line)")
	}
	return nil
}

func fmtEvent(unit string, n int, msg string) string {
	return unit + " " + itoa(n) + ": " + msg
}
