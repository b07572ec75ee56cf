package meta

import (
	"bytes"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Replication: a cluster's ingest node publishes its metadata file to
// the bucket after every change, and query nodes load the newest copy,
// so every node gives the same answer and the same auth decision
// (server/metasync.go moves the bytes).

// Snapshot returns a consistent copy of the whole metadata file.
func (s *Store) Snapshot() ([]byte, error) {
	var buf bytes.Buffer
	err := s.View(func(tx *Tx) error {
		_, err := tx.tx.WriteTo(&buf)
		return err
	})
	return buf.Bytes(), err
}

// OnCommit sets a function run after every successful write.
func (s *Store) OnCommit(f func()) {
	s.mu.Lock()
	s.onCommit = f
	s.mu.Unlock()
}

// SetReadOnly makes writes fail with ErrReadOnly.
func (s *Store) SetReadOnly(ro bool) {
	s.mu.Lock()
	s.readOnly = ro
	s.mu.Unlock()
}

// Replace swaps the file for snapshot (another node's Snapshot), waiting
// for running transactions; a snapshot that does not open leaves the
// current file in place.
func (s *Store) Replace(snapshot []byte) error {
	tmp := s.path + ".incoming"
	if err := os.WriteFile(tmp, snapshot, 0o600); err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	check, err := bolt.Open(tmp, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("meta: published snapshot does not open: %w", err)
	}
	check.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	db, err := bolt.Open(s.path, 0o600, nil)
	if err != nil {
		return fmt.Errorf("meta: reopening %s: %w", s.path, err)
	}
	s.db = db
	s.members.clear()
	return nil
}
