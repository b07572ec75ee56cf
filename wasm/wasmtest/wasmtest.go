// Package wasmtest builds the browser engine for tests: the WASM-vs-native
// test under Node and the console's browser tests both need an
// aplite.wasm made from the sources under test, not the committed one.
package wasmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Build compiles ./wasm for GOOS=js GOARCH=wasm into a temporary
// directory of t and returns the path of the .wasm file. The build reuses
// the Go build cache, so it costs about one link when the sources have
// not changed. (go test puts its own toolchain first on PATH.)
func Build(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "aplite.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "github.com/aplite/aplite/wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build aplite.wasm: %v\n%s", err, log)
	}
	return out
}

// WASMExec returns the path of the toolchain's wasm_exec.js, the glue
// that loads a Go-built .wasm in a browser or in Node.
func WASMExec(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("wasm_exec.js: %v", err)
	}
	return p
}
