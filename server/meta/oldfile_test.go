package meta

import (
	"errors"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestOlderFileLacksNewKinds: a query node replaces its metadata with the
// ingest node's copy; when that node runs an older aplite, the copy lacks
// the kinds added since (the monitor owners). Reading them finds nothing;
// it used to panic on the missing bucket.
func TestOlderFileLacksNewKinds(t *testing.T) {
	older, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer older.Close()
	if err := older.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(KindMonitorOwner)) }); err != nil {
		t.Fatal(err)
	}
	snap, err := older.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	node, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	if err := node.Replace(snap); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := node.Get(KindMonitorOwner, "org", "m1", &v); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a kind the file lacks: %v, want ErrNotFound", err)
	}
	err = node.View(func(tx *Tx) error {
		if tx.Has(KindMonitorOwner, "org", "m1") {
			t.Error("Has found a record in a kind the file lacks")
		}
		return tx.Each(KindMonitorOwner, "org", func(string, []byte) error {
			t.Error("Each found a record in a kind the file lacks")
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
