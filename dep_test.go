package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The pure-Go core must build for the browser (GOOS=js GOARCH=wasm) and stay
// free of the network stack and the server-only dependencies, so that the
// WASM build and the server share one engine. This test fails when someone
// imports one of them into core/, parser/ or vector/, directly or not.
func TestCoreDependencies(t *testing.T) {
	forbidden := []string{"net", "github.com/valyala/fasthttp", "github.com/bytedance/sonic", "github.com/fasthttp/router"}
	for _, goos := range []string{"", "js"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./core/...", "./parser/...", "./vector/...")
		if goos == "js" {
			cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list (GOOS=%q): %v\n%s", goos, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") && f != "net" {
					t.Errorf("GOOS=%q: the core depends on %s", goos, dep)
				}
			}
		}
	}
}
