package parser

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite testdata/fuzz/FuzzParse from the golden queries")

// parseTimeout is far above any real parse (microseconds); hitting it
// means the parser loops.
const parseTimeout = 5 * time.Second

// parseGuarded runs Parse with a timeout, failing the test on a hang
// (a panic inside Parse is converted to an error by Parse itself, so a
// panic here is a test failure through the fuzz engine).
func parseGuarded(t *testing.T, src string) (*Query, error) {
	t.Helper()
	type result struct {
		q   *Query
		err error
	}
	done := make(chan result, 1)
	go func() {
		q, err := Parse(src)
		done <- result{q, err}
	}()
	select {
	case r := <-done:
		return r.q, r.err
	case <-time.After(parseTimeout):
		t.Fatalf("Parse did not return within %v on %q", parseTimeout, src)
		return nil, nil
	}
}

// FuzzParse checks that Parse never panics or hangs, that errors are
// positioned inside the input, and that printing is a fixed point on every
// input that parses.
func FuzzParse(f *testing.F) {
	f.Add("logs | where a > 1")
	f.Fuzz(func(t *testing.T, src string) {
		q, err := parseGuarded(t, src)
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error %T %v is not a non-empty ErrorList", err, err)
			}
			for _, e := range list {
				if e.Pos.Offset < 0 || e.Pos.Offset > len(src) || e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Fatalf("error position %+v outside input %q", e.Pos, src)
				}
				if len(e.Msg) > 0 && e.Msg[:min(len(e.Msg), 23)] == "internal parser error: " {
					t.Fatalf("internal error on %q: %v", src, e)
				}
			}
			return
		}
		text := Format(q)
		q2, err := parseGuarded(t, text)
		if err != nil {
			t.Fatalf("canonical text %q of %q does not parse: %v", text, src, err)
		}
		// Whether a name was written in brackets is provenance, not
		// meaning (the engine reads Name alone): the printer brackets
		// what it cannot prove bare, so ['A.A'] may stand for A.A.
		if d1, d2 := unquotedDump(q), unquotedDump(q2); d1 != d2 {
			t.Fatalf("canonical text %q of %q parses to a different tree:\n%s", text, src, lineDiff(d1, d2))
		}
		if Format(q2) != text {
			t.Fatalf("format not idempotent on %q", src)
		}
	})
}

// TestFuzzCorpusIsCurrent keeps the committed seed corpus in step with the
// golden queries: each golden query is one seed file.
func TestFuzzCorpusIsCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	n := 0
	for _, file := range queryFiles(t) {
		for i, src := range readQueries(t, file) {
			n++
			name := filepath.Join(dir, fmt.Sprintf("%s-%03d", filepath.Base(file[:len(file)-4]), i+1))
			want := "go test fuzz v1\nstring(" + strconv.Quote(src) + ")\n"
			if *writeCorpus {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(name)
			if err != nil || string(got) != want {
				t.Errorf("seed %s missing or stale (run go test ./parser -run FuzzCorpus -write-corpus)", name)
			}
		}
	}
	if n == 0 {
		t.Fatal("no seeds")
	}
}

// unquotedDump is Dump without the markers of bracketed names.
func unquotedDump(q *Query) string { return strings.ReplaceAll(Dump(q), " quoted", "") }
