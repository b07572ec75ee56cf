//go:build !js

package ingest

import (
	"testing"

	"github.com/bytedance/sonic"
)

// BenchmarkSonicMapNDJSON is sonic (the server's JSON library) decoding
// into one map[string]any per event: a baseline for the scanner.
func BenchmarkSonicMapNDJSON(b *testing.B) {
	benchMap(b, sonic.Unmarshal)
}
