//go:build js

package store

import "errors"

// Open is unavailable in the browser build: there is no file system.
func Open(dir string, opts Options) (*DB, error) {
	return nil, errors.New("store: Open is not supported on js/wasm; use OpenMemory")
}

// joinNamed is never reached in the browser: no DB there has a slot.
func (db *DB) joinNamed(name string) error { return ErrNotFound }
