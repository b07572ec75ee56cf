package store

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestDecodeCompressedTextAllocatesOnce decodes a compressed page of log
// lines and checks that its strings live in the decompressed body rather
// than in a copy of it: a full-text search at ten million events decodes
// over a gigabyte of messages, and copying each page doubled the bytes
// allocated (and the work of the collector).
func TestDecodeCompressedTextAllocatesOnce(t *testing.T) {
	const n = 8192
	strs := make([]string, n)
	raw := 0
	for i := range strs {
		strs[i] = fmt.Sprintf("served GET /api/v1/items/%d status=%d took %d ms req_id=%016x", i*7, 200+i%5, i%997, uint64(i)*0x9e3779b97f4a7c15)
		raw += len(strs[i])
	}
	v := &vector.Vector{Type: vector.String, Len: n, Strs: strs}
	blob, _, err := encodeColumn(nil, vector.String, v, n)
	if err != nil {
		t.Fatal(err)
	}
	if blob[0] == compNone {
		t.Fatalf("log lines stored uncompressed; the test needs a compressed body")
	}
	var got *vector.Vector
	least := uint64(1 << 62)
	for range 5 { // the least of several runs: other goroutines may allocate too
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err = decodeColumn("test", 0, blob, vector.String, n)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	checkVec(t, "log lines", got, v)
	// The body (lengths and text), the string headers and the lengths'
	// scratch; a copy of the text would add raw more.
	if limit := uint64(raw + raw/4 + 32*n); least > limit {
		t.Errorf("decoding %d bytes of text allocated %d bytes, want at most %d", raw, least, limit)
	}
}

// A zstd body is decoded without verifying the frame's own checksum: the
// CRC-32C of the blob or page that holds it was checked before (and a
// second hash over every decompressed byte cost 6% of a cold search).
// The frame's checksum is damaged here and the column still decodes.
func TestDecodeSkipsZstdFrameChecksum(t *testing.T) {
	const n = 4096
	strs := make([]string, n)
	for i := range strs {
		strs[i] = fmt.Sprintf("served GET /api/v1/items/%d status=%d", i, 200+i%5)
	}
	v := &vector.Vector{Type: vector.String, Len: n, Strs: strs}
	blob, _, err := encodeColumn(nil, vector.String, v, n)
	if err != nil {
		t.Fatal(err)
	}
	if blob[0] != compZstd {
		t.Fatalf("compression %d, the test needs zstd", blob[0])
	}
	blob[len(blob)-1] ^= 0xff // the last byte of the frame's xxhash
	got, err := decodeColumn("test", 0, blob, vector.String, n)
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "log lines", got, v)
}
