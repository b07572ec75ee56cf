package objstore

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeBucket is an S3 client on a fake store: the bucket exists (HEAD
// and location answer 200) and every other request goes to h.
func fakeBucket(t *testing.T, timeout time.Duration, h http.HandlerFunc) *S3 {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "HEAD" || r.URL.RawQuery == "location=" {
			w.WriteHeader(200)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	s, err := NewS3(context.Background(), S3Config{Endpoint: srv.URL, Bucket: "bucket", AccessKey: "k", SecretKey: "s",
		Region: "us-east-1", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// slowDown answers S3's throttling error, which a client must retry.
func slowDown(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write([]byte(`<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
}

// A store that throttles for a while: the client backs off and retries,
// the PUT lands whole, and the caller sees success, not the 503s.
func TestS3RetriesThrottling(t *testing.T) {
	var puts, refused atomic.Int32
	var stored atomic.Value
	s := fakeBucket(t, 20*time.Second, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "PUT" {
			w.WriteHeader(400)
			return
		}
		if puts.Add(1) <= 2 {
			refused.Add(1)
			io.Copy(io.Discard, r.Body)
			slowDown(w)
			return
		}
		body, _ := io.ReadAll(r.Body)
		stored.Store(string(body))
		w.Header().Set("ETag", `"e"`)
		w.WriteHeader(200)
	})
	data := strings.Repeat("block bytes ", 1000)
	if err := s.Put(context.Background(), "datasets/x/blocks/1.blk", []byte(data)); err != nil {
		t.Fatalf("put after two throttled attempts: %v", err)
	}
	if n := refused.Load(); n != 2 {
		t.Fatalf("%d attempts refused, want 2", n)
	}
	got, _ := stored.Load().(string)
	// The body may carry a streaming trailer (CRC32C); the block's
	// bytes must all be in it.
	if !strings.Contains(got, data) {
		t.Fatalf("stored %d bytes, which do not hold the %d put", len(got), len(data))
	}
}

// A store that only ever throttles: the PUT fails within the timeout,
// naming the key and the store's answer, never hanging on retries.
func TestS3ThrottledForeverFails(t *testing.T) {
	s := fakeBucket(t, 3*time.Second, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		slowDown(w)
	})
	began := time.Now()
	err := s.Put(context.Background(), "datasets/x/blocks/2.blk", []byte("x"))
	if err == nil {
		t.Fatal("a store that only throttles accepted the put")
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("gave up after %v", d)
	}
	if msg := err.Error(); !strings.Contains(msg, "datasets/x/blocks/2.blk") || !strings.Contains(msg, "reduce your request rate") {
		t.Fatalf("error %q does not name the key and the store's answer", msg)
	}
}

// Reads do not ask the store to gzip: blocks and large catalog versions
// are compressed already, and what is stored is what is read.
func TestS3ReadsAskForIdentity(t *testing.T) {
	s := fakeBucket(t, 5*time.Second, func(w http.ResponseWriter, r *http.Request) {
		if enc := r.Header.Get("Accept-Encoding"); strings.Contains(enc, "gzip") {
			t.Errorf("%s %s accepts %q", r.Method, r.URL.Path, enc)
		}
		w.Header().Set("Last-Modified", "Fri, 27 Nov 2026 05:00:00 GMT")
		w.Header().Set("ETag", `"e"`)
		w.Write([]byte("abcd"))
	})
	// Go's transport asks for gzip on any request without a Range header
	// unless told not to: a catalog version is read whole.
	if b, err := s.Get(context.Background(), "datasets/x/catalog/00000000000000000001.json"); err != nil || string(b) != "abcd" {
		t.Fatalf("got %q, %v", b, err)
	}
}
