//go:build segmentio

// segmentio/encoding/json needs github.com/segmentio/asm, which go.sum does
// not list, so this baseline only builds with -tags segmentio and a go.sum
// that has it (e.g. via -modfile pointing at a scratch copy).

package ingest

import (
	"testing"

	segjson "github.com/segmentio/encoding/json"
)

// BenchmarkSegmentioMapNDJSON is the decoder the issue names for the core:
// segmentio's json into one map[string]any per event.
func BenchmarkSegmentioMapNDJSON(b *testing.B) {
	benchMap(b, segjson.Unmarshal)
}
