package syslog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxFrame is the largest message read by default: 64 KiB, the limit
// Axiom's syslog endpoint sets, in line with RFC 5425.
const MaxFrame = 64 << 10

// ErrFrameTooLong is a frame over the reader's limit. On a stream it ends
// the connection, as Axiom's endpoint does: a message is never stored
// truncated, and an octet count that large is more likely a stream out of
// step than a message.
var ErrFrameTooLong = errors.New("syslog frame over the size limit")

// maxCountDigits bounds an octet count's digits: more than this is not a
// count any limit would take.
const maxCountDigits = 9

// octetCount reads RFC 6587's "MSG-LEN SP" at the start of b: the count,
// the bytes it took and whether b starts with one at all. A line that
// starts with digits not followed by a space (a message without a PRI,
// "2024-01-01 ...") is not a count; it is framed by its newline.
func octetCount(b []byte) (n, size int, ok bool) {
	i := 0
	for ; i < len(b) && i <= maxCountDigits && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if i == 0 || i > maxCountDigits || i >= len(b) || b[i] != ' ' || b[0] == '0' {
		return 0, 0, false
	}
	return n, i + 1, true
}

// isSeparator reports the bytes skipped between frames: the newline some
// senders put after an octet-counted frame, and NUL, which older senders
// use as a trailer.
func isSeparator(c byte) bool { return c == '\n' || c == '\r' || c == 0 }

// SplitFrames calls fn with each frame of body, in order: octet-counted
// frames (Heroku's logplex bodies) and newline-ended ones, told apart by
// their first byte as RFC 6587 section 3.4 says a receiver may. A count
// that runs past the body is an error for the rest of its line, and the
// frames after that line are still read, so one bad frame is one failure.
func SplitFrames(body []byte, fn func(frame []byte, err error)) {
	for len(body) > 0 {
		if isSeparator(body[0]) {
			body = body[1:]
			continue
		}
		if n, size, ok := octetCount(body); ok {
			if size+n <= len(body) {
				fn(body[size:size+n], nil)
				body = body[size+n:]
				continue
			}
			line, rest := cutLine(body)
			fn(line, fmt.Errorf("octet count %d runs past the end of the body (%d bytes left)", n, len(body)-size))
			body = rest
			continue
		}
		line, rest := cutLine(body)
		fn(line, nil)
		body = rest
	}
}

// cutLine cuts b after its first newline.
func cutLine(b []byte) (line, rest []byte) {
	for i, c := range b {
		if c == '\n' {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// Reader reads frames from a stream (a syslog TCP or TLS connection),
// octet-counted or newline-ended, each told apart by its first byte.
type Reader struct {
	r   *bufio.Reader
	max int
}

// NewReader reads frames of up to max bytes (MaxFrame when max <= 0)
// from r.
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxFrame
	}
	return &Reader{r: bufio.NewReaderSize(r, max+maxCountDigits+2), max: max}
}

// Buffered returns the bytes read from the stream and not yet returned as
// frames. A caller batching frames flushes its batch when this is 0,
// before Next blocks waiting for the sender.
func (r *Reader) Buffered() int { return r.r.Buffered() }

// Next returns the next frame, valid until the following call. At the
// end of the stream it returns io.EOF (a last line without its newline is
// a frame first); a frame over the limit is ErrFrameTooLong, after which
// the stream is out of step and should be closed.
func (r *Reader) Next() ([]byte, error) {
	for {
		c, err := r.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if !isSeparator(c) {
			break
		}
	}
	_ = r.r.UnreadByte()
	if n, size, ok := octetCount(r.countHead()); ok {
		if n > r.max {
			return nil, fmt.Errorf("%w: octet count %d, the limit is %d", ErrFrameTooLong, n, r.max)
		}
		if _, err := r.r.Discard(size); err != nil {
			return nil, err
		}
		frame, err := r.r.Peek(n)
		if err != nil {
			return nil, unexpected(err)
		}
		_, _ = r.r.Discard(n)
		return frame, nil
	}
	line, err := r.r.ReadSlice('\n')
	if err == nil {
		line = line[:len(line)-1]
	}
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(line) > r.max:
		return nil, fmt.Errorf("%w: a line longer than %d bytes", ErrFrameTooLong, r.max)
	case err == nil, err == io.EOF && len(line) > 0:
		return line, nil
	}
	return nil, err
}

// countHead returns the start of the next frame as far as an octet
// count could reach: its digits and the byte after them. It asks the
// stream for one byte more only while every byte so far is a digit, so a
// short newline-ended message ("<13>hi\n") is returned at once instead
// of waiting for the bytes a ten-byte peek would need, which a quiet
// sender may never send.
func (r *Reader) countHead() []byte {
	var head []byte
	for i := 1; i <= maxCountDigits+1; i++ {
		b, err := r.r.Peek(i)
		if err != nil {
			return b // the end of the stream: octetCount sees no space
		}
		head = b
		if c := b[i-1]; c < '0' || c > '9' {
			break
		}
	}
	return head
}

// unexpected turns an end of stream inside a frame into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Ready reports whether a whole frame is already buffered, so Next would
// return it without waiting for the sender: a batch takes frames while
// this holds and is stored as soon as it does not.
func (r *Reader) Ready() bool {
	b, _ := r.r.Peek(r.r.Buffered())
	for len(b) > 0 && isSeparator(b[0]) {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	if n, size, ok := octetCount(b); ok {
		return size+n <= len(b) || n > r.max // an over-long count fails at once
	}
	return bytes.IndexByte(b, '\n') >= 0 || len(b) >= r.max
}
