package ingest

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// decodeCSV decodes an RFC 4180 body: a header row (or Options.CSVFields)
// naming the columns, then one event per row. Values are typed the way a
// reader would: an integer that fits int64 is an Int, a JSON-style decimal
// a Float, true/false (any of TRUE, True, true) a Bool, an empty cell is
// no field at all, anything else a String; numbers that would lose digits
// (leading zeros, beyond int64) stay strings (Options.CSVDeclared keeps
// every cell a string). A row with the wrong number of cells (unless
// CSVDeclared), or broken quoting, fails on its own; the body is rejected
// only when the header row cannot be read.
func (d *decoder) decodeCSV(body []byte) error {
	r, err := newCSVReader(body, d.o.CSVDelimiter)
	if err != nil {
		return err
	}
	d.start, d.stop = r.pos, len(body)
	var ids []int32
	if len(d.o.CSVFields) > 0 {
		for i, name := range d.o.CSVFields {
			ids = append(ids, d.f.top(columnName(name, i)))
		}
	}
	for {
		line := r.line
		cells, msg, ok := r.next()
		if !ok {
			return nil
		}
		if ids == nil {
			if msg != "" {
				return locate(body, r.errOff, "CSV header row: "+msg)
			}
			for i, c := range cells {
				ids = append(ids, d.f.top(columnName(string(d.validUTF8(c)), i)))
			}
			continue
		}
		if msg != "" {
			d.failure(fmtEvent("line", line, msg))
			continue
		}
		if len(cells) != len(ids) && !d.o.CSVDeclared {
			d.failure(fmtEvent("line", line, fmt.Sprintf("row has %d fields, the header has %d", len(cells), len(ids))))
			continue
		}
		d.begin()
		for i, c := range cells[:min(len(cells), len(ids))] {
			d.csvValue(ids[i], c)
		}
		d.pos = r.pos // how far the body is read, for reserve
		d.end("line", line)
	}
}

// columnName names column i, giving an unnamed column a usable name.
func columnName(name string, i int) string {
	if name == "" {
		return "column" + strconv.Itoa(i+1)
	}
	return name
}

// csvValue stores one cell, typed as decodeCSV describes.
func (d *decoder) csvValue(id int32, b []byte) {
	if d.f.nodes[id].skip {
		return
	}
	switch {
	case d.o.CSVDeclared:
	case len(b) == 0:
		return
	case b[0] == '-' || b[0]-'0' <= 9:
		if iv, fv, isInt, ok := csvNumber(b); ok {
			if isInt {
				d.setInt(id, iv)
			} else {
				d.setFloat(id, fv)
			}
			return
		}
	case b[0] == 't' || b[0] == 'T' || b[0] == 'f' || b[0] == 'F':
		switch string(b) {
		case "true", "TRUE", "True":
			d.setBool(id, true)
			return
		case "false", "FALSE", "False":
			d.setBool(id, false)
			return
		}
	}
	d.setString(id, d.validUTF8(b))
}

// validUTF8 returns b with each invalid byte replaced by U+FFFD, as the
// JSON path does, so every stored string is valid UTF-8.
func (d *decoder) validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return d.fixUTF8(b)
}

// csvNumber reads b as a number when that loses nothing: JSON number
// syntax without leading zeros, integers within int64, finite floats.
func csvNumber(b []byte) (iv int64, fv float64, isInt, ok bool) {
	i := 0
	if b[0] == '-' {
		i++
	}
	if i >= len(b) || (b[i] == '0' && i+1 < len(b) && b[i+1]-'0' <= 9) {
		return 0, 0, false, false
	}
	digits, float := 0, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c-'0' <= 9:
			digits++
		case (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') && digits > 0:
			float = true
		default:
			return 0, 0, false, false
		}
	}
	s := unsafe.String(&b[0], len(b))
	if !float {
		x, err := strconv.ParseInt(s, 10, 64)
		return x, 0, true, err == nil
	}
	if !jsonNumber(b) {
		return 0, 0, false, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return 0, f, false, err == nil
}

// jsonNumber reports whether b is exactly a JSON number.
func jsonNumber(b []byte) bool {
	d := decoder{buf: b}
	_, _, _, err := d.number()
	return err == nil && d.pos == len(b)
}

// csvReader splits a CSV body into records.
type csvReader struct {
	body   []byte
	pos    int
	line   int // line of the next record
	delim  []byte
	buf    []byte // cell bytes of the current record
	ends   []int  // end offset in buf of each cell
	cells  [][]byte
	errOff int
}

func newCSVReader(body []byte, delim rune) (*csvReader, error) {
	if delim == '"' || delim == '\r' || delim == '\n' || !utf8.ValidRune(delim) || delim == utf8.RuneError {
		return nil, fmt.Errorf("invalid CSV delimiter %q", delim)
	}
	r := &csvReader{body: body, line: 1, delim: utf8.AppendRune(nil, delim)}
	if bytes.HasPrefix(body, bom) {
		r.pos = len(bom)
	}
	return r, nil
}

// next returns the cells of the next non-empty record, valid until the
// following call. msg is set (and the rest of the line skipped) when the
// record's quoting is broken; ok is false at the end of the body.
func (r *csvReader) next() (cells [][]byte, msg string, ok bool) {
	body := r.body
	// Skip empty lines.
	for r.pos < len(body) && (body[r.pos] == '\n' || body[r.pos] == '\r' && r.pos+1 < len(body) && body[r.pos+1] == '\n') {
		if body[r.pos] == '\r' {
			r.pos++
		}
		r.pos++
		r.line++
	}
	if r.pos >= len(body) {
		return nil, "", false
	}
	r.buf, r.ends = r.buf[:0], r.ends[:0]
	for {
		end, m := r.cell()
		r.ends = append(r.ends, len(r.buf))
		if m != "" {
			r.skipLine()
			return nil, m, true
		}
		if end {
			break
		}
	}
	r.cells = r.cells[:0]
	start := 0
	for _, e := range r.ends {
		r.cells = append(r.cells, r.buf[start:e:e])
		start = e
	}
	return r.cells, "", true
}

// cell reads one cell into r.buf and reports whether it ended the record.
func (r *csvReader) cell() (end bool, msg string) {
	body, i := r.body, r.pos
	if i < len(body) && body[i] == '"' {
		return r.quoted()
	}
	for i < len(body) {
		c := body[i]
		if c == '\n' {
			stop := i
			if stop > r.pos && body[stop-1] == '\r' {
				stop--
			}
			r.buf = append(r.buf, body[r.pos:stop]...)
			r.pos = i + 1
			r.line++
			return true, ""
		}
		if c == r.delim[0] && bytes.HasPrefix(body[i:], r.delim) {
			r.buf = append(r.buf, body[r.pos:i]...)
			r.pos = i + len(r.delim)
			return false, ""
		}
		i++
	}
	stop := len(body)
	if stop > r.pos && body[stop-1] == '\r' {
		stop--
	}
	r.buf = append(r.buf, body[r.pos:stop]...)
	r.pos = len(body)
	return true, ""
}

// quoted reads a quoted cell: "" is a quote, CRLF inside becomes LF.
func (r *csvReader) quoted() (end bool, msg string) {
	body := r.body
	open := r.pos
	i := r.pos + 1
	for {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			r.errOff = open
			return true, "quoted field is never closed"
		}
		seg := body[i : i+j]
		r.line += bytes.Count(seg, []byte{'\n'})
		if bytes.IndexByte(seg, '\r') >= 0 {
			seg = bytes.ReplaceAll(seg, []byte("\r\n"), []byte("\n"))
		}
		r.buf = append(r.buf, seg...)
		i += j + 1
		if i < len(body) && body[i] == '"' {
			r.buf = append(r.buf, '"')
			i++
			continue
		}
		break
	}
	switch {
	case i >= len(body):
		r.pos = i
		return true, ""
	case body[i] == '\n':
		r.pos = i + 1
		r.line++
		return true, ""
	case body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n':
		r.pos = i + 2
		r.line++
		return true, ""
	case bytes.HasPrefix(body[i:], r.delim):
		r.pos = i + len(r.delim)
		return false, ""
	}
	r.pos = i
	r.errOff = i
	return false, fmt.Sprintf("unexpected %s after a closing quote", describe(body, i))
}

// skipLine moves past the end of the current line after a broken record.
func (r *csvReader) skipLine() {
	if r.pos >= len(r.body) {
		return
	}
	nl := bytes.IndexByte(r.body[r.pos:], '\n')
	if nl < 0 {
		r.pos = len(r.body)
		return
	}
	r.pos += nl + 1
	r.line++
}
