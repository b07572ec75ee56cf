package parser

import (
	"fmt"
	"strings"
)

// Error is one syntax error at a position in the query text.
type Error struct {
	Pos Pos
	Msg string
}

// Error renders the error as `line:col: message`.
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

// ErrorList is every syntax error the parser found, in source order. The
// first is the most reliable; later ones follow recovery.
type ErrorList []*Error

// Error renders all errors, one per line.
func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}
