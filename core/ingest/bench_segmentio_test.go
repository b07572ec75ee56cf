//go:build segmentio

// segmentio/encoding/json is a baseline, not a dependency of ingest: the tag
// keeps it out of the default test build. Figures and the decision are in
// README.md ("Why ingest decodes JSON itself").

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
