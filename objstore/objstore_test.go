package objstore

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

func TestParseURL(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_REGION", "eu-west-1")
	cfg, err := ParseURL("s3://my-bucket/some/prefix/")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Bucket != "my-bucket" || cfg.Prefix != "some/prefix" || cfg.Endpoint != "http://127.0.0.1:9000" || cfg.Region != "eu-west-1" {
		t.Fatalf("%+v", cfg)
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://s3only:1")
	if cfg, _ = ParseURL("s3://b"); cfg.Endpoint != "http://s3only:1" {
		t.Fatalf("AWS_ENDPOINT_URL_S3 should win: %+v", cfg)
	}
	for _, bad := range []string{"file:///x", "s3:///nobucket", "bucket/prefix"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A store that accepts connections and never answers turns into an error
// within the timeout, not a hang.
func TestS3StalledStoreTimesOut(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	began := time.Now()
	_, err := NewS3(context.Background(), S3Config{Endpoint: srv.URL, Bucket: "bucket", AccessKey: "k", SecretKey: "s",
		Region: "us-east-1", Timeout: 2 * time.Second})
	if err == nil {
		t.Fatal("a stalled store was accepted")
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}

// A store that answers errors: the client says which key and does not
// report success.
func TestS3ErrorsNameTheKey(t *testing.T) {
	s := fakeBucket(t, 5*time.Second, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(404)
		w.Write([]byte(`<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>gone</Message></Error>`))
	})
	_, err := s.GetRange(context.Background(), "datasets/x/blocks/1.blk", 0, 10)
	if !errors.Is(err, store.ErrObjectNotFound) || !strings.Contains(err.Error(), "datasets/x/blocks/1.blk") {
		t.Fatalf("got %v", err)
	}
}

// Ranges are served from memory, then disk, then the bucket; a block
// this node uploads is cached whole; catalogs are never cached.
func TestCachedLayers(t *testing.T) {
	inner := store.NewMemObjects()
	disk, err := OpenDisk(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	st := &Stats{}
	c := NewCached(inner, 1<<20, disk, st)
	ctx := context.Background()
	blk := bytes.Repeat([]byte("0123456789"), 100)
	if err := c.Put(ctx, "d/blocks/a.blk", blk); err != nil {
		t.Fatal(err)
	}
	if err := inner.Put(ctx, "d/blocks/b.blk", blk); err != nil {
		t.Fatal(err)
	}
	inner.Gets = 0
	get := func(key string, off, n int64) []byte {
		t.Helper()
		b, err := c.GetRange(ctx, key, off, n)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if b := get("d/blocks/a.blk", 10, 5); string(b) != "01234" || inner.Gets != 0 || st.DiskHits.Load() != 1 {
		t.Fatalf("own upload: %q, %d bucket GETs, %d disk hits", b, inner.Gets, st.DiskHits.Load())
	}
	if b := get("d/blocks/a.blk", 10, 5); string(b) != "01234" || st.MemHits.Load() != 1 {
		t.Fatalf("second read: %q, %d memory hits", b, st.MemHits.Load())
	}
	get("d/blocks/b.blk", 3, 4)
	get("d/blocks/b.blk", 3, 4)
	if inner.Gets != 1 {
		t.Fatalf("a range read twice cost %d bucket GETs", inner.Gets)
	}
	// A fresh memory layer over the same disk: the range is on disk.
	c2 := NewCached(inner, 1<<20, disk, st)
	if _, err := c2.GetRange(ctx, "d/blocks/b.blk", 3, 4); err != nil || inner.Gets != 1 {
		t.Fatalf("after a restart: %v, %d bucket GETs", err, inner.Gets)
	}
	inner.Put(ctx, "d/catalog/1.json", []byte("{}"))
	c.Get(ctx, "d/catalog/1.json")
	c.Get(ctx, "d/catalog/1.json")
	if inner.Gets != 3 {
		t.Fatalf("catalogs must not be cached: %d bucket GETs", inner.Gets)
	}
}

// The disk cache stays under its bound, dropping the least recently used
// entries first, and survives a restart.
func TestDiskLRU(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(dir, 4000)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 900)
	d.Put("k1", 0, chunk, false)
	d.Put("k2", 0, chunk, false)
	d.Put("k3", 0, chunk, false)
	if _, ok := d.Get("k1", 0, 900); !ok { // k1 is now the most recent
		t.Fatal("k1 missing")
	}
	d.Put("k4", 0, chunk, false)
	d.Put("k5", 0, chunk, false)
	if d.Used() > 4000 {
		t.Fatalf("cache holds %d bytes over its 4000", d.Used())
	}
	if _, ok := d.Get("k2", 0, 900); ok {
		t.Error("k2, the least recently used, survived")
	}
	if _, ok := d.Get("k1", 0, 900); !ok {
		t.Error("k1, used recently, was evicted")
	}
	os.WriteFile(filepath.Join(dir, "junk.tmp"), []byte("x"), 0o644)
	d2, err := OpenDisk(dir, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Used() != d.Used() {
		t.Errorf("after reopening: %d bytes, before %d", d2.Used(), d.Used())
	}
	if _, err := os.Stat(filepath.Join(dir, "junk.tmp")); !os.IsNotExist(err) {
		t.Error("a leftover .tmp file was kept")
	}
}
