package objstore

import (
	"errors"
	"testing"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/seaweedtest"
)

// The writer lease's conditional writes against the real SeaweedFS
// (APLITE_WEED=$(scripts/seaweedfs)): a create where an object exists,
// and a replace of a version no longer there, both fail with
// ErrObjectChanged and leave the object as it was.
func TestS3SwapIsConditional(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	s, err := NewS3(t.Context(), S3Config{Endpoint: endpoint, Region: "us-east-1", AccessKey: "aplite", SecretKey: "aplite",
		Bucket: seaweedtest.Bucket, Prefix: "swap"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tag1, err := s.Swap(ctx, "lease", []byte("one"), "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := s.Swap(ctx, "lease", []byte("two"), ""); !errors.Is(err, store.ErrObjectChanged) {
		t.Fatalf("a second create: %v, want ErrObjectChanged", err)
	}
	b, tag, err := s.GetTag(ctx, "lease")
	if err != nil || string(b) != "one" || tag != tag1 {
		t.Fatalf("after a refused create: %q tag %q (%v), want %q tag %q", b, tag, err, "one", tag1)
	}
	tag2, err := s.Swap(ctx, "lease", []byte("three"), tag1)
	if err != nil || tag2 == tag1 {
		t.Fatalf("a replace of the version read: tag %q, %v", tag2, err)
	}
	if _, err := s.Swap(ctx, "lease", []byte("four"), tag1); !errors.Is(err, store.ErrObjectChanged) {
		t.Fatalf("a replace of a stale version: %v, want ErrObjectChanged", err)
	}
	if b, tag, err := s.GetTag(ctx, "lease"); err != nil || string(b) != "three" || tag != tag2 {
		t.Fatalf("after a refused replace: %q tag %q (%v), want %q tag %q", b, tag, err, "three", tag2)
	}
	if _, err := s.Swap(ctx, "absent", []byte("x"), tag2); !errors.Is(err, store.ErrObjectChanged) {
		t.Fatalf("a replace of a missing object: %v, want ErrObjectChanged", err)
	}
}
