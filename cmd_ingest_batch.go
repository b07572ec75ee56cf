package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
)

// batch is a run of events to send in one request: NDJSON lines, or CSV
// records after the header line every CSV batch repeats.
type batch struct {
	contentType string
	head        []byte
	events      [][]byte
	starts      []int  // where each event starts: a line (NDJSON, CSV) or an element (JSON)
	unit        string // "line" or "element"
}

func (b *batch) size() int {
	n := len(b.head)
	for _, e := range b.events {
		n += len(e)
	}
	return n
}

func (b *batch) body() []byte {
	out := make([]byte, 0, b.size())
	out = append(out, b.head...)
	for _, e := range b.events {
		out = append(out, e...)
	}
	return out
}

// split halves the batch by events.
func (b *batch) split() (*batch, *batch) {
	k := len(b.events) / 2
	first, second := *b, *b
	first.events, first.starts = b.events[:k], b.starts[:k]
	second.events, second.starts = b.events[k:], b.starts[k:]
	return &first, &second
}

func (b *batch) where(i int) string { return fmt.Sprintf("%s %d", b.unit, b.starts[i]) }

// batcher cuts a file into batches of at most limit bytes (an event
// larger than limit goes alone: the server decides).
type batcher struct {
	limit int
	read  func() ([]byte, int, error) // the next event and where it starts
	b     *batch
	next_ []byte // an event read that did not fit the previous batch
	at    int
	err   error
}

func newBatcher(r io.Reader, format string, limit int) *batcher {
	bt := &batcher{limit: limit}
	switch format {
	case "csv":
		bt.read = csvEvents(r, bt)
		bt.b = &batch{contentType: "text/csv", unit: "line"}
	case "json":
		bt.read = jsonEvents(r)
		bt.b = &batch{contentType: "application/x-ndjson", unit: "element"}
	default:
		bt.read = ndjsonEvents(r)
		bt.b = &batch{contentType: "application/x-ndjson", unit: "line"}
	}
	return bt
}

// next returns the next batch, or io.EOF after the last.
func (bt *batcher) next() (*batch, error) {
	b := &batch{contentType: bt.b.contentType, unit: bt.b.unit, head: bt.b.head}
	size := len(b.head)
	if bt.next_ != nil {
		b.events, b.starts = append(b.events, bt.next_), append(b.starts, bt.at)
		size += len(bt.next_)
		bt.next_ = nil
	}
	for bt.err == nil {
		ev, at, err := bt.read()
		if err != nil {
			bt.err = err
			break
		}
		b.head = bt.b.head // a CSV header is known after the first read
		if len(b.events) > 0 && size+len(ev) > bt.limit {
			bt.next_, bt.at = ev, at
			return b, nil
		}
		b.events, b.starts = append(b.events, ev), append(b.starts, at)
		size += len(ev)
	}
	if len(b.events) > 0 && bt.err == io.EOF {
		return b, nil
	}
	return nil, bt.err
}

// ndjsonEvents reads non-blank lines, each with its newline.
func ndjsonEvents(r io.Reader) func() ([]byte, int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	line := 0
	return func() ([]byte, int, error) {
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				line++
				if len(bytes.TrimSpace(l)) > 0 {
					if l[len(l)-1] != '\n' {
						l = append(l, '\n')
					}
					return l, line, nil
				}
			}
			if err != nil {
				return nil, 0, err
			}
		}
	}
}

// jsonEvents reads a JSON array of objects, or a sequence of JSON values,
// and gives each element as one NDJSON line.
func jsonEvents(r io.Reader) func() ([]byte, int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	dec := json.NewDecoder(br)
	started, array := false, false
	n := 0
	return func() ([]byte, int, error) {
		if !started {
			started = true
			c, err := firstByte(br)
			if err != nil {
				return nil, 0, err
			}
			if c == '[' {
				array = true
				if _, err := dec.Token(); err != nil {
					return nil, 0, err
				}
			}
		}
		if array && !dec.More() {
			if _, err := dec.Token(); err != nil {
				return nil, 0, fmt.Errorf("element %d: %w", n+1, err)
			}
			return nil, 0, io.EOF
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF && !array {
				return nil, 0, io.EOF
			}
			return nil, 0, fmt.Errorf("element %d: %w", n+1, err)
		}
		n++
		var line bytes.Buffer
		if err := json.Compact(&line, raw); err != nil {
			return nil, 0, fmt.Errorf("element %d: %w", n, err)
		}
		line.WriteByte('\n')
		return line.Bytes(), n, nil
	}
}

// firstByte peeks at the first byte that is not white space.
func firstByte(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if err != nil {
			if err == io.EOF && len(b) == i-1 {
				return 0, io.EOF
			}
			return 0, err
		}
		switch c := b[i-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c, nil
		}
	}
}

// csvEvents reads CSV records; the first is the header, kept in the
// batch's head so that every batch carries it.
func csvEvents(r io.Reader, bt *batcher) func() ([]byte, int, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<20))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	encode := func(rec []string) ([]byte, error) {
		buf.Reset()
		if err := cw.Write(rec); err != nil {
			return nil, err
		}
		cw.Flush()
		return bytes.Clone(buf.Bytes()), cw.Error()
	}
	return func() ([]byte, int, error) {
		rec, err := cr.Read()
		if err != nil {
			return nil, 0, err
		}
		line, _ := cr.FieldPos(0)
		ev, err := encode(rec)
		if err != nil {
			return nil, 0, err
		}
		if bt.b.head == nil {
			bt.b.head = ev
			rec, err = cr.Read()
			if err != nil {
				return nil, 0, err
			}
			line, _ = cr.FieldPos(0)
			if ev, err = encode(rec); err != nil {
				return nil, 0, err
			}
		}
		return ev, line, nil
	}
}
