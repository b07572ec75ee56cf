package parser

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Query files under testdata/queries hold queries separated by lines of
// "====". Each query file has a golden file under testdata/golden with,
// per query, its canonical text and its AST dump. errors.txt holds
// queries that must fail; its golden file holds the exact messages.

const querySep = "\n====\n"

func readQueries(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range strings.Split(string(b), querySep) {
		if q = strings.TrimSpace(q); q != "" {
			out = append(out, q)
		}
	}
	return out
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./parser -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden output; diff:\n%s", name, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines, enough to find the change.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return "(same lines)"
}

func queryFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "queries", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no query files: %v", err)
	}
	return files
}

func TestGoldenQueries(t *testing.T) {
	total := 0
	for _, file := range queryFiles(t) {
		base := filepath.Base(file)
		if base == "errors.txt" {
			continue
		}
		var out strings.Builder
		for i, src := range readQueries(t, file) {
			total++
			q, err := Parse(src)
			if err != nil {
				t.Errorf("%s query %d:\n%s\nfailed: %v", base, i+1, src, err)
				continue
			}
			text := Format(q)
			out.WriteString("=== " + itoa(i+1) + "\n" + src + "\n--- format\n" + text + "\n--- ast\n" + Dump(q) + "\n\n")
			checkRoundTrip(t, src, q)
		}
		checkGolden(t, strings.TrimSuffix(base, ".txt")+".golden", out.String())
	}
	if total < 50 {
		t.Errorf("only %d golden queries", total)
	}
}

// checkRoundTrip asserts that printing is a fixed point: the canonical
// text parses to the same tree and prints to itself.
func checkRoundTrip(t *testing.T, src string, q *Query) {
	t.Helper()
	text := Format(q)
	q2, err := Parse(text)
	if err != nil {
		t.Errorf("canonical text of\n%s\ndoes not parse:\n%s\nerror: %v", src, text, err)
		return
	}
	if Dump(q) != Dump(q2) {
		t.Errorf("canonical text of\n%s\nparses to a different tree:\n%s\n%s", src, lineDiff(Dump(q), Dump(q2)), text)
	}
	if text2 := Format(q2); text2 != text {
		t.Errorf("format is not idempotent for\n%s\n%s", src, lineDiff(text, text2))
	}
}

func TestGoldenErrors(t *testing.T) {
	var out strings.Builder
	for i, src := range readQueries(t, filepath.Join("testdata", "queries", "errors.txt")) {
		_, err := Parse(src)
		if err == nil {
			t.Errorf("error query %d parsed without error:\n%s", i+1, src)
			continue
		}
		if _, ok := err.(ErrorList); !ok {
			t.Errorf("error query %d: error is %T, want ErrorList", i+1, err)
		}
		out.WriteString("=== " + itoa(i+1) + "\n" + src + "\n--- error\n" + err.Error() + "\n\n")
	}
	checkGolden(t, "errors.golden", out.String())
}
