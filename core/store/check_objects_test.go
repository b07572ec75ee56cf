//go:build !js

package store

import (
	"context"
	"strings"
	"testing"
)

// CheckObjects finds nothing in a healthy bucket, and names the object
// and the fault of a flipped byte, a missing block, a short one and a
// damaged catalog version.
func TestCheckObjects(t *testing.T) {
	objs, _ := flushedBucket(t, 3)
	ctx := context.Background()
	var seen []string
	probs, err := CheckObjects(ctx, objs, func(i, n int, key string) { seen = append(seen, key) })
	if err != nil || len(probs) > 0 || len(seen) != 3 {
		t.Fatalf("healthy bucket: %v %v, %d blocks read", probs, err, len(seen))
	}
	cat, _ := loadCatalog(ctx, objs, "logs", nil)
	b0, b1, b2 := cat.Blocks[0], cat.Blocks[1], cat.Blocks[2]
	raw, _ := objs.Get(ctx, b0.Key)
	flipped := append([]byte(nil), raw...)
	flipped[headerLen+3] ^= 0x40 // inside the first column's blob
	objs.Put(ctx, b0.Key, flipped)
	objs.Delete(ctx, b1.Key)
	short, _ := objs.Get(ctx, b2.Key)
	objs.Put(ctx, b2.Key, short[:len(short)-1])
	probs, err = CheckObjects(ctx, objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{b0.Key: "checksum", b1.Key: "not in the bucket", b2.Key: "the catalog says"}
	if len(probs) != len(want) {
		t.Fatalf("problems %+v", probs)
	}
	for _, p := range probs {
		if !strings.Contains(p.Reason, want[p.File]) || p.Dataset != "logs" {
			t.Errorf("%s: %q, want one about %q", p.File, p.Reason, want[p.File])
		}
	}
	key := catalogKey("logs", cat.Version)
	objs.Put(ctx, key, []byte("{not json"))
	if probs, err := CheckObjects(ctx, objs, nil); err != nil || len(probs) != 1 || probs[0].File != key {
		t.Errorf("a damaged catalog version: %+v %v", probs, err)
	}
}
