package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"unicode/utf8"
	"unsafe"

	// SIMD base64 (a plain Go fallback off amd64): the standard
	// library's decoder alone cost more than the 15% the door may add to
	// plain NDJSON ingest; this one decodes 12 GB/s here against 0.7.
	"github.com/segmentio/asm/base64"
)

// firehoseBuf holds the NDJSON one delivery's records become. It is
// reused: a busy stream sends megabytes per request, and ingest copies
// what it keeps, so the buffer is free again once the request is stored.
type firehoseBuf struct {
	out     []byte       // the NDJSON handed to ingest
	scratch []byte       // a record that must be rewritten line by line
	gz      bytes.Buffer // a gzip record, decompressed
	recs    []firehoseRecord
}

// keepRecords keeps req's records slice for the next request, its strings
// cleared: they point into this request's body.
func (b *firehoseBuf) keepRecords(req *firehoseRequest) {
	clear(req.Records)
	b.recs = req.Records[:0]
}

// firehoseFree keeps a few buffers across garbage collections, which
// empty a sync.Pool: a fresh multi-megabyte buffer per delivery cost more
// in clearing memory than decoding the base64 did. A buffer past
// keepFirehoseBuf goes back to the collector.
var firehoseFree = make(chan *firehoseBuf, 4)

const keepFirehoseBuf = 32 << 20

func getFirehoseBuf() *firehoseBuf {
	select {
	case b := <-firehoseFree:
		return b
	default:
		return new(firehoseBuf)
	}
}

func putFirehoseBuf(b *firehoseBuf) {
	if cap(b.out) > keepFirehoseBuf || cap(b.scratch) > keepFirehoseBuf || b.gz.Cap() > keepFirehoseBuf || cap(b.recs) > 1<<20 {
		return
	}
	select {
	case firehoseFree <- b:
	default:
	}
}

// events turns the records into NDJSON, at most limit bytes (the same cap
// a body has on /ingest, so a delivery cannot store more than a plain
// request could). Each record's data, base64-decoded and gunzipped when
// it is gzip, becomes events as follows:
//   - a JSON object (on one line or pretty-printed) is one event;
//   - otherwise each non-empty line is an event: a line that starts with
//     '{' is read as a JSON object, any other line is kept whole as the
//     string field "message" (plain log lines, CSV, syslog text).
//
// The common case, one JSON object per record, is decoded in place and
// not copied again.
func (b *firehoseBuf) events(recs []firehoseRecord, limit int64) ([]byte, error) {
	// One allocation up front: growing by record would copy the whole
	// buffer over and again (a third of the door's time, measured).
	size := 0
	for i := range recs {
		size += base64.RawStdEncoding.DecodedLen(len(recs[i].Data)) + 1
	}
	out := slices.Grow(b.out[:0], size)
	defer func() { b.out = out[:0] }()
	for i := range recs {
		var err error
		if out, err = b.record(out, recs[i].Data, i, limit); err != nil {
			return nil, err
		}
		if int64(len(out)) > limit {
			return nil, recordsTooLarge(limit, i)
		}
	}
	return out, nil
}

func recordsTooLarge(limit int64, i int) error {
	return errorf(http.StatusRequestEntityTooLarge,
		"the records decode to more than the limit of %d bytes (at %s)", limit, recordField(i))
}

// record appends record i's events to out, failing once out would pass
// limit (a gzip record is not inflated past it).
func (b *firehoseBuf) record(out []byte, data string, i int, limit int64) ([]byte, error) {
	start := len(out)
	// Unpadded base64 decodes to more than its padded length says.
	n := base64.RawStdEncoding.DecodedLen(len(data))
	out = slices.Grow(out, n+1)[:start+n]
	// Decode only reads src: viewing the string's bytes saves a copy of
	// every record.
	src := unsafe.Slice(unsafe.StringData(data), len(data))
	m, err := base64.StdEncoding.Decode(out[start:], src)
	if err != nil {
		if m, err = base64.RawStdEncoding.Decode(out[start:], src); err != nil {
			return out[:start], badRequest("%s: not base64: %v", recordField(i), err)
		}
	}
	return b.decoded(out, start, m, i, limit)
}

// decoded turns record i, decoded into out[start:start+m], into its
// events in place.
func (b *firehoseBuf) decoded(out []byte, start, m, i int, limit int64) ([]byte, error) {
	rec := out[start : start+m]
	if len(rec) >= 2 && rec[0] == 0x1f && rec[1] == 0x8b {
		b.gz.Reset()
		if err := gunzip(&b.gz, rec, limit-int64(start)); err != nil {
			if ae := asAPIError(err); ae.Status != http.StatusRequestEntityTooLarge {
				return out[:start], badRequest("%s: %s", recordField(i), ae.Message)
			}
			return out[:start], recordsTooLarge(limit, i)
		}
		return appendRecord(out[:start], b.gz.Bytes()), nil
	}
	t := bytes.TrimSpace(rec)
	if len(t) > 0 && t[0] == '{' && bytes.IndexByte(t, '\n') < 0 {
		// One object on one line, where it was decoded (moved to the
		// record's start only when there was space before it).
		if &t[0] != &out[start] {
			copy(out[start:], t)
		}
		return append(out[:start+len(t)], '\n'), nil
	}
	b.scratch = append(b.scratch[:0], rec...)
	return appendRecord(out[:start], b.scratch), nil
}

// appendRecord appends the events of one decoded record that is not a
// single-line object: a pretty-printed object compacted onto one line, or
// the record's lines.
func appendRecord(out, rec []byte) []byte {
	t := bytes.TrimSpace(rec)
	if len(t) == 0 {
		return out
	}
	if t[0] == '{' {
		n := len(out)
		w := bytes.NewBuffer(out)
		if json.Compact(w, t) == nil {
			return append(w.Bytes(), '\n')
		}
		out = w.Bytes()[:n] // NDJSON, or a broken object: line by line
	}
	for len(rec) > 0 {
		line := rec
		if j := bytes.IndexByte(rec, '\n'); j >= 0 {
			line, rec = rec[:j], rec[j+1:]
		} else {
			rec = nil
		}
		out = appendLine(out, bytes.TrimSpace(line))
	}
	return out
}

// appendLine appends one line as an event: an object as it is (ingest
// reports it if it is not valid JSON), anything else as "message".
func appendLine(out, line []byte) []byte {
	switch {
	case len(line) == 0:
		return out
	case line[0] == '{':
		out = append(out, line...)
	default:
		out = append(out, `{"message":`...)
		out = appendJSONBytes(out, line)
		out = append(out, '}')
	}
	return append(out, '\n')
}

// appendJSONBytes appends s as a JSON string, invalid UTF-8 replaced by
// U+FFFD (ingest would otherwise store bytes no query can print).
func appendJSONBytes(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
