// Command extract writes the runnable APL queries of a checkout of
// Axiom's documentation (github.com/axiomhq/docs) as JSON lines, sorted
// by page, for internal/docsquery/testdata/queries.jsonl:
//
//	go run ./internal/docsquery/extract -git /path/to/docs.git -rev <commit> \
//	    > internal/docsquery/testdata/queries.jsonl
//
// -git reads the pages straight from a (bare) git directory at -rev, so
// the file names the commit it came from; -dir reads a working tree.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aplite/aplite/internal/docsquery"
)

func main() {
	gitDir := flag.String("git", "", "git directory of the docs repository")
	rev := flag.String("rev", "HEAD", "revision to read with -git")
	dir := flag.String("dir", "", "working tree of the docs repository (instead of -git)")
	flag.Parse()
	pages, err := readPages(*gitDir, *rev, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	var all []docsquery.Query
	for _, n := range names {
		all = append(all, docsquery.Extract(n, pages[n])...)
	}
	if err := docsquery.Write(os.Stdout, all); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "extract: %d queries from %d pages\n", len(all), len(names))
}

// readPages returns every .mdx file under content/ by repository path.
func readPages(gitDir, rev, dir string) (map[string][]byte, error) {
	pages := map[string][]byte{}
	if dir != "" {
		err := filepath.WalkDir(filepath.Join(dir, "content"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mdx") {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			pages[filepath.ToSlash(rel)] = b
			return err
		})
		return pages, err
	}
	if gitDir == "" {
		return nil, fmt.Errorf("set -git or -dir")
	}
	out, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "-z", "--name-only", rev, "content").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	for _, n := range bytes.Split(out, []byte{0}) {
		name := string(n)
		if !strings.HasSuffix(name, ".mdx") {
			continue
		}
		b, err := exec.Command("git", "--git-dir", gitDir, "show", rev+":"+name).Output()
		if err != nil {
			return nil, fmt.Errorf("git show %s: %w", name, err)
		}
		pages[name] = b
	}
	return pages, nil
}
