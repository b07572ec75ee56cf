//go:build js

package store

import "errors"

// Open is unavailable in the browser build: there is no file system.
func Open(dir string, opts Options) (*DB, error) {
	return nil, errors.New("store: Open is not supported on js/wasm; use OpenMemory")
}
