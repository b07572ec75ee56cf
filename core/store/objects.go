package store

import (
	"context"
	"errors"
	"time"
)

// ObjectStore is the bucket that blocks and catalogs live in when a DB
// runs on object storage (OBJECTS.md). The core defines it and never
// touches the network itself: the S3 client and the caches that implement
// it live outside core (package objstore). Keys are relative to the
// store's prefix. Implementations must be safe for concurrent use, retry
// transient failures themselves and bound every call by a timeout.
type ObjectStore interface {
	// Put stores data under key, replacing any object there.
	Put(ctx context.Context, key string, data []byte) error
	// PutIfAbsent stores data under key unless an object exists there, in
	// which case it returns ErrObjectExists. Stores without conditional
	// writes may behave like Put (OBJECTS.md, rule 3).
	PutIfAbsent(ctx context.Context, key string, data []byte) error
	// Get returns the whole object, or ErrObjectNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetRange returns n bytes from off, or ErrObjectNotFound. A store
	// returning fewer bytes than asked (a short object) is an error.
	GetRange(ctx context.Context, key string, off, n int64) ([]byte, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the objects whose keys start with prefix, in key order.
	// With a non-empty delim it returns instead the distinct key prefixes
	// up to the first delim after prefix (like S3's CommonPrefixes) in
	// Prefixes, and the objects directly under prefix in Objects.
	List(ctx context.Context, prefix, delim string) (ListResult, error)
}

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key      string
	Size     int64
	Modified time.Time
}

// ListResult is the answer of ObjectStore.List.
type ListResult struct {
	Objects  []ObjectInfo
	Prefixes []string
}

// Errors an ObjectStore returns; test with errors.Is.
var (
	ErrObjectNotFound = errors.New("object not found")
	ErrObjectExists   = errors.New("object already exists")
	// ErrReadOnly is returned by writes to a DB opened with OpenRemote: a
	// query node serves what the ingest node published.
	ErrReadOnly = errors.New("store is read-only on this node (role query)")
)
