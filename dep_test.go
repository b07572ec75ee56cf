package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
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

// The server, the WASM build and the command line reach the storage and
// the engine only through package db, the one front door: opening a store,
// making an engine or decoding an ingest body anywhere else would start a
// second path an ingest body or a query could take (a builder of rows
// filled outside db is one: "new builder, decode, finish, append"). Tests
// and benchmarks may build their own fixtures.
func TestOneFrontDoor(t *testing.T) {
	doors := map[string]bool{"store.Open": true, "store.OpenMemory": true, "store.OpenRemote": true,
		"core.NewEngine": true, "core.NewEngineWith": true, "core.StoreCatalog": true, "exec.StoreCatalog": true, "ingest.Decode": true,
		"ingest.Sniff": true, "store.NewRowsBuilder": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch path {
			case "core", "db", "bench", "compat", "internal", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && doors[pkg.Name+"."+sel.Sel.Name] {
				t.Errorf("%s: %s.%s outside package db; go through db instead", path, pkg.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The server, the WASM build and the command line import, from this
// module, only the front door (db and its subpackages), the parser (for `aplite fmt`), their
// own packages and the S3 client: a type or function of the engine or the
// storage that one of them needs is added to db, so the engine's packages
// can change behind it without the callers. Tests may import more.
func TestFrontDoorImports(t *testing.T) {
	const mod = "github.com/aplite/aplite"
	behind := []string{mod + "/core", mod + "/vector", mod + "/fileformat"}
	for _, goos := range []string{"", "js"} {
		pkgs := []string{".", "./server/...", "./wasm/..."}
		if goos == "js" {
			pkgs = []string{"./wasm/..."}
		}
		cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, pkgs...)...)
		if goos == "js" {
			cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list (GOOS=%q): %v\n%s", goos, err, out)
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			for _, imp := range f[1:] {
				for _, b := range behind {
					if imp == b || strings.HasPrefix(imp, b+"/") {
						t.Errorf("GOOS=%q: %s imports %s; go through db instead", goos, f[0], imp)
					}
				}
			}
		}
	}
}
