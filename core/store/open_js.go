//go:build js

package store

import (
	"context"
	"errors"
)

// Open is unavailable in the browser build: there is no file system.
func Open(dir string, opts Options) (*DB, error) {
	return nil, errors.New("store: Open is not supported on js/wasm; use OpenMemory")
}

// joinNamed is never reached in the browser: no DB there has a slot.
func (db *DB) joinNamed(name string) error { return ErrNotFound }

// FollowsOthers is false in the browser: no DB there has a slot.
func (db *DB) FollowsOthers() bool { return false }

// RefreshOthers does nothing in the browser.
func (db *DB) RefreshOthers(ctx context.Context) error { return nil }
