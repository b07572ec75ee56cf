package session

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aplite/aplite/parser"
)

// Syntax parses apl without running it and lists its syntax errors, so
// the console can mark them while the user types (before a Run, and
// without a dataset to resolve fields against). Nil when it parses.
func Syntax(apl string) []Error {
	_, err := parser.Parse(apl)
	if err == nil {
		return nil
	}
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		out := make([]Error, len(list))
		for i, e := range list {
			out[i] = Error{Message: e.Msg, Line: e.Pos.Line, Col: e.Pos.Col, Kind: "syntax"}
		}
		return out
	}
	var one *parser.Error
	if errors.As(err, &one) {
		return []Error{{Message: one.Msg, Line: one.Pos.Line, Col: one.Pos.Col, Kind: "syntax"}}
	}
	return []Error{{Message: err.Error(), Kind: "syntax"}}
}

// FilterPoint is where a filter stage goes in a query's text: At is a
// UTF-16 offset (what a JavaScript string and a textarea count).
type FilterPoint struct {
	At int `json:"at"`
}

// FilterAt says where a `| where` stage that keeps the rows of one value
// belongs: right after the body's source and the where stages that
// directly follow it, as Axiom and Grafana put it. At the end it would
// filter only the rows a take kept, or fail after a summarize that
// dropped the field.
func FilterAt(apl string) (FilterPoint, error) {
	q, err := parser.Parse(apl)
	if err != nil {
		return FilterPoint{}, err
	}
	if q.Body == nil || q.Body.Source == nil {
		return FilterPoint{}, errors.New("the query has no source to filter")
	}
	end := q.Body.Source.Span().End.Offset
	for _, op := range q.Body.Ops {
		if _, ok := op.(*parser.WhereOp); !ok {
			break
		}
		end = op.Span().End.Offset
	}
	return FilterPoint{At: utf16Len(apl[:end])}, nil
}

// utf16Len counts the UTF-16 code units of s.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n
}
