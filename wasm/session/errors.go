package session

import (
	"errors"

	"github.com/aplite/aplite/db"
)

// Error is an error as the JavaScript API answers it: {"error": Error}.
// Line and Col (1-based) are set for errors in the query text, so the
// console can mark the spot, as it does with the HTTP API's 400 detail.
type Error struct {
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Kind    string `json:"kind,omitempty"`
}

// ErrorOf describes err for the JavaScript side.
func ErrorOf(err error) Error {
	var qe *db.QueryError
	if errors.As(err, &qe) {
		return Error{Message: qe.Msg, Line: qe.Line, Col: qe.Col, Kind: qe.Kind}
	}
	return Error{Message: err.Error()}
}
