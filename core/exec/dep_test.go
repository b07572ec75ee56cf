package exec

import (
	osexec "os/exec"
	"strings"
	"testing"
)

// The execution runs what a plan says, built from plan nodes, on this
// node or on another one that received a fragment: it must never need the
// query text or the AST. This fails when core/exec or its tests import the
// parser, directly or through another package.
func TestExecDoesNotImportParser(t *testing.T) {
	out, err := osexec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/aplite/aplite/parser" || strings.HasPrefix(dep, "github.com/aplite/aplite/parser/") {
			t.Errorf("core/exec depends on %s", dep)
		}
	}
}
