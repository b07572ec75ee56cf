package server

import (
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// An internal error's answer names the operation and the file, never the
// directory the server keeps its data in.
func TestInternalErrorHidesDataPath(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/srv/aplite/data/logs/wal/0001.wal", Err: syscall.EIO}
	e := asAPIError(fmt.Errorf("appending to logs: %w", cause))
	if e.Status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", e.Status)
	}
	if strings.Contains(e.Message, "/srv/aplite") || !strings.Contains(e.Message, "0001.wal") || !strings.Contains(e.Message, "input/output error") {
		t.Fatalf("message %q: want the file's base name and the cause, not the data path", e.Message)
	}
}

// A full disk is 507 with Retry-After on every route, not only ingest's.
func TestFullDiskIsInsufficientStorage(t *testing.T) {
	cause := &fs.PathError{Op: "write", Path: "/srv/aplite/data/meta.db", Err: syscall.ENOSPC}
	e := asAPIError(fmt.Errorf("creating dataset: %w", cause))
	if e.Status != http.StatusInsufficientStorage || len(e.Headers) == 0 || e.Headers[0][0] != "Retry-After" {
		t.Fatalf("got %d %v, want 507 with Retry-After", e.Status, e.Headers)
	}
	if strings.Contains(e.Message, "/srv/aplite") {
		t.Fatalf("message %q names the data path", e.Message)
	}
}
