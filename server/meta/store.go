// Package meta keeps aplite's metadata (organizations, users, tokens,
// annotations, RBAC groups, virtual fields, starred queries, monitors,
// notifiers, dashboards and dataset settings) in a bbolt file in the data
// directory, so it survives restarts and concurrent requests.
//
// Records are JSON documents keyed by (kind, org, id). Each kind is a
// top-level bucket; org-scoped kinds key their records "org\x00id" so one
// prefix scan lists an org's records. Every read-modify-write goes through
// one bbolt transaction, which is what makes uniqueness checks (group
// names, dataset names, token hashes) race-free.
package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Errors returned by Store and Tx methods; test with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
	// ErrOwnerHome refuses to take the server's owner out of an org its
	// personal tokens (the admin token) act in.
	ErrOwnerHome = errors.New("the server's owner cannot leave the organization its admin token acts in")
)

// Kind names a family of records (one bbolt bucket).
type Kind string

// The record kinds. Global kinds (orgs, users, tokens) use org "".
const (
	KindOrg        Kind = "orgs"
	KindUser       Kind = "users"
	KindMember     Kind = "members" // org-scoped: user id -> Membership
	KindToken      Kind = "tokens"
	KindTokenHash  Kind = "tokenhash" // sha256 hex -> token id
	KindAnnotation Kind = "annotations"
	KindGroup      Kind = "groups"
	KindVField     Kind = "vfields"
	KindStarred    Kind = "starred"
	KindMonitor    Kind = "monitors"
	KindNotifier   Kind = "notifiers"
	KindDashboard  Kind = "dashboards"
	KindDataset    Kind = "datasets"
	KindSettings   Kind = "settings" // server-wide settings, org ""
	// KindMonitorState and KindMonitorRuns keep a monitor's alert state
	// and its recent runs (org-scoped, keyed by monitor id), so both
	// survive a restart.
	KindMonitorState Kind = "monitorstate"
	KindMonitorRuns  Kind = "monitorruns"
	// KindMonitorOwner keeps who a monitor acts as (MonitorOwner),
	// org-scoped and keyed by monitor id, apart from the monitor itself,
	// whose JSON is exactly what the clients read.
	KindMonitorOwner Kind = "monitorowner"
)

var allKinds = []Kind{KindOrg, KindUser, KindMember, KindToken, KindTokenHash,
	KindAnnotation, KindGroup, KindVField, KindStarred, KindMonitor,
	KindNotifier, KindDashboard, KindDataset, KindSettings, KindMonitorState, KindMonitorRuns, KindMonitorOwner}

// Store is an open metadata file. It is safe for concurrent use.
type Store struct {
	// mu guards db against Replace: transactions hold it for reading.
	mu   sync.RWMutex
	db   *bolt.DB
	path string
	// readOnly refuses writes (a query node: its metadata is the ingest
	// node's, replicated through the bucket).
	readOnly bool
	// onCommit, when set, runs after every successful write.
	onCommit func()
	// members caches Member's answers (membercache.go).
	members memberCache
}

// ErrReadOnly is returned by writes to a store set read-only.
var ErrReadOnly = errors.New("metadata is read-only on this node (role query): send changes to the ingest node")

// FileName is the metadata file's name inside the data directory.
const FileName = "meta.db"

// Open opens (creating when absent) the metadata store in dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("meta: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// A short lock timeout turns "another aplite holds this data dir" into
	// an error instead of a hang.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("meta: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, k := range allKinds {
			if _, err := tx.CreateBucketIfNotExists([]byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("meta: init %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// Path returns the metadata file's path.
func (s *Store) Path() string { return s.path }

// Close closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.Close()
}

// Update runs fn in one read-write transaction; fn's error rolls it back.
func (s *Store) Update(fn func(tx *Tx) error) error {
	s.mu.RLock()
	if s.readOnly {
		s.mu.RUnlock()
		return ErrReadOnly
	}
	err := s.db.Update(func(btx *bolt.Tx) error { return fn(&Tx{btx}) })
	if err == nil {
		s.members.clear()
	}
	hook := s.onCommit
	s.mu.RUnlock()
	if err == nil && hook != nil {
		hook()
	}
	return err
}

// View runs fn in one read-only transaction.
func (s *Store) View(fn func(tx *Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.db.View(func(btx *bolt.Tx) error { return fn(&Tx{btx}) })
}

// Get reads one record into v.
func (s *Store) Get(k Kind, org, id string, v any) error {
	return s.View(func(tx *Tx) error { return tx.Get(k, org, id, v) })
}

// Put writes one record, replacing any previous one.
func (s *Store) Put(k Kind, org, id string, v any) error {
	return s.Update(func(tx *Tx) error { return tx.Put(k, org, id, v) })
}

// Insert writes one record, failing with ErrExists when the id is taken.
func (s *Store) Insert(k Kind, org, id string, v any) error {
	return s.Update(func(tx *Tx) error { return tx.Insert(k, org, id, v) })
}

// Delete removes one record, failing with ErrNotFound when absent.
func (s *Store) Delete(k Kind, org, id string) error {
	return s.Update(func(tx *Tx) error { return tx.Delete(k, org, id) })
}

// Tx is one transaction over the store.
type Tx struct{ tx *bolt.Tx }

func key(org, id string) []byte {
	b := make([]byte, 0, len(org)+1+len(id))
	b = append(b, org...)
	b = append(b, 0)
	return append(b, id...)
}

func (t *Tx) bucket(k Kind) *bolt.Bucket { return t.tx.Bucket([]byte(k)) }

// Get reads one record into v.
func (t *Tx) Get(k Kind, org, id string, v any) error {
	b := t.bucket(k)
	if b == nil { // a kind newer than the file (a query node's copy from an older ingest node)
		return ErrNotFound
	}
	data := b.Get(key(org, id))
	if data == nil {
		return ErrNotFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("meta: decode %s %q: %w", k, id, err)
	}
	return nil
}

// Has reports whether a record exists.
func (t *Tx) Has(k Kind, org, id string) bool {
	b := t.bucket(k)
	return b != nil && b.Get(key(org, id)) != nil
}

// Put writes one record, replacing any previous one.
func (t *Tx) Put(k Kind, org, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("meta: encode %s %q: %w", k, id, err)
	}
	return t.bucket(k).Put(key(org, id), data)
}

// Insert writes one record, failing with ErrExists when the id is taken.
func (t *Tx) Insert(k Kind, org, id string, v any) error {
	if t.Has(k, org, id) {
		return ErrExists
	}
	return t.Put(k, org, id, v)
}

// Delete removes one record, failing with ErrNotFound when absent.
func (t *Tx) Delete(k Kind, org, id string) error {
	if !t.Has(k, org, id) {
		return ErrNotFound
	}
	return t.bucket(k).Delete(key(org, id))
}

// Each calls fn with the id and raw JSON of every record of an org, in id
// order. The data is only valid during the call.
func (t *Tx) Each(k Kind, org string, fn func(id string, data []byte) error) error {
	prefix := key(org, "")
	b := t.bucket(k)
	if b == nil { // a kind newer than the file: no records of it
		return nil
	}
	c := b.Cursor()
	for kk, v := c.Seek(prefix); kk != nil && bytes.HasPrefix(kk, prefix); kk, v = c.Next() {
		if err := fn(string(kk[len(prefix):]), v); err != nil {
			return err
		}
	}
	return nil
}

// List decodes every record of an org, in id order.
func List[T any](s *Store, k Kind, org string) ([]T, error) {
	out := []T{}
	err := s.View(func(tx *Tx) error {
		var err error
		out, err = ListTx[T](tx, k, org)
		return err
	})
	return out, err
}

// ListTx is List inside a transaction.
func ListTx[T any](tx *Tx, k Kind, org string) ([]T, error) {
	out := []T{}
	err := tx.Each(k, org, func(id string, data []byte) error {
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("meta: decode %s %q: %w", k, id, err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}
