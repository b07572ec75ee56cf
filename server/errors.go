package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// apiError is an error with the HTTP status and JSON body it answers with.
type apiError struct {
	Status  int
	Message string
	// Detail is an optional extra object (query errors carry their
	// position there).
	Detail any
	// Headers are extra response headers (rate-limit headers).
	Headers [][2]string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

func errorf(status int, format string, args ...any) *apiError {
	return &apiError{Status: status, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, format, args...)
}

func notFound(format string, args ...any) *apiError {
	return errorf(http.StatusNotFound, format, args...)
}

func conflict(format string, args ...any) *apiError {
	return errorf(http.StatusConflict, format, args...)
}

func forbidden(format string, args ...any) *apiError {
	return errorf(http.StatusForbidden, format, args...)
}

// errorBody is the JSON shape of every error response.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Detail  any    `json:"detail,omitempty"`
}

// asAPIError maps any handler error onto a status and message. Errors
// that are not *apiError are internal: 500 with their text.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, db.ErrReadOnly) || errors.Is(err, meta.ErrReadOnly) {
		return forbidden("this node serves queries only (role query): send writes to an ingest node")
	}
	return &apiError{Status: http.StatusInternalServerError, Message: err.Error()}
}
