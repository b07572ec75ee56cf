package core

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden runs every testdata/golden/*.apl over the fixture and
// compares the tables with the .json beside it. Run with -update to
// rewrite the expectations after checking the diff by eye.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.apl"))
	if len(files) == 0 {
		t.Fatal("no golden queries")
	}
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 3, true)))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".apl")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			r, err := query(t, e, string(src))
			if err != nil {
				got = "error: " + err.Error() + "\n"
			} else {
				got = stableJSON(r)
			}
			want := strings.TrimSuffix(f, ".apl") + ".json"
			if *update {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("missing golden file (run with -update): %v", err)
			}
			if string(exp) != got {
				t.Errorf("%s\n--- got\n%s\n--- want\n%s", src, got, exp)
			}
		})
	}
}
