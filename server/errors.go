package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
	// RequestID is the id of the request's log lines (X-Request-Id); the
	// Axiom clients ignore fields they do not know.
	RequestID string `json:"requestId,omitempty"`
}

// asAPIError maps any handler error onto a status and message. Errors
// that are not *apiError are internal: 500 with their text, less the
// server's file paths (a caller learns which operation failed and why,
// never where the data lives), and 507 for a full disk on any route.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, db.ErrReadOnly) || errors.Is(err, meta.ErrReadOnly) {
		return forbidden("this node serves queries only (role query): send writes to an ingest node")
	}
	if errors.Is(err, db.ErrLeaseLost) {
		return leaseLost(err)
	}
	if errors.Is(err, db.ErrNoSpace) || errors.Is(err, syscall.ENOSPC) {
		return &apiError{Status: http.StatusInsufficientStorage, Headers: [][2]string{{"Retry-After", "10"}},
			Message: "the server's disk is full: nothing of this request was stored; retry once space is freed"}
	}
	return &apiError{Status: http.StatusInternalServerError, Message: withoutPaths(err)}
}

// leaseLost answers a write on a node whose writer lease another node
// took over: 503, naming the new holder (the error's text from "this
// node lost the write lease" on, which holds no path).
func leaseLost(err error) *apiError {
	msg := err.Error()
	if i := strings.Index(msg, db.ErrLeaseLost.Error()); i >= 0 {
		msg = msg[i:]
	}
	return &apiError{Status: http.StatusServiceUnavailable,
		Message: msg + ": nothing of this request was stored; send writes to the node holding the lease"}
}

// withoutPaths is err's text with the path of every *fs.PathError and
// *os.LinkError in its chain cut to the file's base name.
func withoutPaths(err error) string {
	msg := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch pe := e.(type) {
		case *fs.PathError:
			msg = strings.ReplaceAll(msg, pe.Path, filepath.Base(pe.Path))
		case *os.LinkError:
			msg = strings.ReplaceAll(msg, pe.Old, filepath.Base(pe.Old))
			msg = strings.ReplaceAll(msg, pe.New, filepath.Base(pe.New))
		}
	}
	return msg
}
