package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock returns the indented command block that follows the
// paragraph of README.md ending in lead (up to the next blank line).
func readmeBlock(t *testing.T, readme, lead string) string {
	t.Helper()
	i := strings.Index(readme, lead)
	if i < 0 {
		t.Fatalf("README.md has no %q", lead)
	}
	rest := readme[i:]
	start := strings.Index(rest, "\n\n    ")
	if start < 0 {
		t.Fatalf("no command block after %q", lead)
	}
	var lines []string
	for _, l := range strings.Split(rest[start+2:], "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		lines = append(lines, strings.TrimPrefix(l, "    "))
	}
	return strings.Join(lines, "\n")
}

// README's first commands are make run and make test, it points nowhere
// outside the repository, and its example works from a fresh clone: the
// events file it ingests and queries is one it says how to make.
func TestReadmeExampleWorks(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: README's example uses it")
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	first := readmeBlock(t, readme, "On a fresh machine with Go 1.26:")
	if !strings.HasPrefix(first, "make run ") || !strings.Contains(first, "\nmake test ") {
		t.Errorf("README's first commands are not make run and make test:\n%s", first)
	}
	for _, outside := range []string{"../shared", "make conformance"} {
		if strings.Contains(readme, outside) {
			t.Errorf("README.md mentions %q, which is not in the repository", outside)
		}
	}

	addr := freeAddr(t)
	const tok = "xapt-readme-example"
	startServe(t, "-addr", addr, "-data", t.TempDir(), "-token", tok)
	example := readmeBlock(t, readme, "and query them:") + "\n" + readmeBlock(t, readme, "Or without a server:")
	script := strings.NewReplacer("http://127.0.0.1:8080", "http://"+addr, "xapt-...", tok).Replace(example)
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "aplite")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-eu", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), `"code":4`) || strings.Contains(string(out), `"code":5`) ||
		!strings.Contains(string(out), `"tables"`) {
		t.Fatalf("README's example failed (%v):\n%s\noutput:\n%s", err, script, out)
	}
}
