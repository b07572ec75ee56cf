package ingest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// ErrTooLarge is wrapped by Decompress when the decompressed body would
// exceed the limit.
var ErrTooLarge = errors.New("request body too large")

// Decompress undoes a Content-Encoding: "" or "identity" (as is), "gzip"
// (also "x-gzip") or "zstd"; matching ignores case and surrounding space.
// maxBytes > 0 caps the decompressed size (and the size of an identity
// body); over it the error wraps ErrTooLarge. An identity body is returned
// without copying.
func Decompress(body []byte, contentEncoding string, maxBytes int64) ([]byte, error) {
	enc := strings.ToLower(strings.TrimSpace(contentEncoding))
	switch enc {
	case "", "identity":
		if maxBytes > 0 && int64(len(body)) > maxBytes {
			return nil, tooLarge(maxBytes)
		}
		return body, nil
	case "gzip", "x-gzip":
		zr := gzipReaders.Get().(*gzip.Reader)
		defer gzipReaders.Put(zr)
		if err := zr.Reset(bytes.NewReader(body)); err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		return readAll(zr, sizeHint(gzipSize(body), len(body)), maxBytes, "gzip")
	case "zstd":
		zr := zstdReaders.Get().(*zstd.Decoder)
		defer func() {
			zr.Reset(nil) // drop the reference to body
			zstdReaders.Put(zr)
		}()
		if err := zr.Reset(bytes.NewReader(body)); err != nil {
			return nil, fmt.Errorf("zstd body: %w", err)
		}
		return readAll(zr, sizeHint(zstdSize(body), len(body)), maxBytes, "zstd")
	}
	return nil, fmt.Errorf("unsupported content encoding %q: use gzip, zstd or none", contentEncoding)
}

func tooLarge(max int64) error {
	return fmt.Errorf("%w: decompressed body exceeds the limit of %d bytes", ErrTooLarge, max)
}

var gzipReaders = sync.Pool{New: func() any { return new(gzip.Reader) }}

// maxZstdWindow bounds the window a frame header may ask the decoder to
// allocate; encoders use at most 8 MB unless told otherwise.
const maxZstdWindow = 128 << 20

var zstdReaders = sync.Pool{New: func() any {
	// Synchronous (no goroutines, works on wasm); the body size limit is
	// enforced by readAll, the window limit guards against hostile headers.
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(false),
		zstd.WithDecoderMaxWindow(maxZstdWindow))
	if err != nil {
		panic("zstd: " + err.Error()) // only bad options fail
	}
	return zr
}}

// readAll reads r to the end, at most maxBytes (when > 0), starting with
// a buffer of hint bytes.
func readAll(r io.Reader, hint int64, maxBytes int64, what string) ([]byte, error) {
	limit := maxBytes
	if limit <= 0 {
		limit = 1<<63 - 1
	}
	if hint <= 0 || hint > limit {
		hint = min(limit, 64<<10)
	}
	buf := make([]byte, 0, hint+1) // +1: reading EOF needs no growth
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, tooLarge(maxBytes)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s body: %w", what, err)
		}
	}
}

// sizeHint bounds a size claimed by a compressed header, which a truncated
// or hostile body can set to anything: no more than 32 times the
// compressed size (a ratio real logs rarely exceed; the buffer grows past
// it when needed) and 256 MB.
func sizeHint(claimed int64, compressed int) int64 {
	return min(claimed, 32*int64(compressed)+64<<10, 256<<20)
}

// gzipSize guesses the decompressed size from the gzip trailer (the size
// mod 2^32 of the last member), for the initial buffer only.
func gzipSize(b []byte) int64 {
	if len(b) < 18 {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(b[len(b)-4:]))
}

// zstdSize reads the frame content size from the first frame header, when
// the encoder wrote one.
func zstdSize(b []byte) int64 {
	var h zstd.Header
	if err := h.Decode(b); err != nil || !h.HasFCS {
		return 0
	}
	return int64(min(h.FrameContentSize, 1<<40))
}
