package ingest

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// SyntaxError reports where a body that cannot be parsed in its format
// broke. Line and Column are 1-based; Column counts bytes. The server
// answers it with 400.
type SyntaxError struct {
	Offset int64 // byte offset into the decompressed body
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d (byte %d): %s", e.Line, e.Column, e.Offset, e.Msg)
}

// syntaxErr is the position-only form the scanner builds on the hot path;
// the line and column are worked out once, by locate, when it surfaces.
type syntaxErr struct {
	off int
	msg string
}

func (e *syntaxErr) Error() string { return e.msg }

// locate turns an offset into body into a SyntaxError.
func locate(body []byte, off int, msg string) *SyntaxError {
	if off > len(body) {
		off = len(body)
	}
	line := 1 + bytes.Count(body[:off], []byte{'\n'})
	col := off + 1
	if nl := bytes.LastIndexByte(body[:off], '\n'); nl >= 0 {
		col = off - nl
	}
	return &SyntaxError{Offset: int64(off), Line: line, Column: col, Msg: msg}
}

// describe names the byte at off for an error message.
func describe(buf []byte, off int) string {
	if off >= len(buf) {
		return "end of input"
	}
	c := buf[off]
	if c < utf8.RuneSelf && c >= ' ' {
		return fmt.Sprintf("character %q", c)
	}
	r, _ := utf8.DecodeRune(buf[off:])
	return fmt.Sprintf("character %U", r)
}
