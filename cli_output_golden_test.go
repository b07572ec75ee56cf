package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var recordCLI = flag.Bool("record-cli", false, "rewrite the -format goldens under testdata/cli/")

// cliGoldenQueries are the queries whose output in every -format is
// pinned byte for byte: nulls of every type, dynamic values, timestamps
// with and without fractions, CSV quoting, a tab inside a cell, a wide
// row of a file, an aggregation and an empty result.
var cliGoldenQueries = []struct{ name, apl string }{
	{"types", `datatable(t:datetime, n:long, s:string, d:dynamic, r:real, ts:timespan, b:bool)[` +
		`datetime(2024-01-02T03:04:05.123Z), 1, 'a,b "q"', dynamic({'k':[1,2,null],'z':'x'}), 1.5, 1h, true, ` +
		`datetime(null), long(null), '', dynamic(null), real(null), timespan(null), bool(null), ` +
		`datetime(2024-01-02), -7, 'tab\there', dynamic([]), 0.1, 90s, false]`},
	{"wide", "logs | where status >= 500 | sort by _time asc, id asc | take 3"},
	{"summary", "logs | summarize n = count(), avg = avg(req_duration_ms), cities = make_set(geo.city) by method | extend cities = array_sort_asc(cities) | sort by method asc"},
	{"empty", "logs | where status == 999 | project method, status"},
}

// elapsed is the only part of an answer that changes from run to run.
var elapsed = regexp.MustCompile(`"elapsedTime":[0-9]+`)

// The output of aplite query in every text format stays byte-identical
// to testdata/cli/ (go test -run TestQueryOutputGolden -record-cli
// rewrites it): scripts parse it (../shared/spec/cli.md).
func TestQueryOutputGolden(t *testing.T) {
	in := "logs=" + filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	for _, q := range cliGoldenQueries {
		for _, format := range []string{"table", "csv", "ndjson", "rows", "json"} {
			out, errOut, code := aplite(t, "", "query", "-in", in, "-start", "2024-01-01T00:00:00Z", "-end", "2025-01-01T00:00:00Z",
				"-format", format, q.apl)
			if code != 0 {
				t.Errorf("%s -format %s: exit %d: %s", q.name, format, code, errOut)
				continue
			}
			cliGolden(t, q.name+"."+format, elapsed.ReplaceAllString(out, `"elapsedTime":0`))
		}
	}
	// -o FILE writes what standard output shows.
	path := filepath.Join(t.TempDir(), "out.csv")
	if _, errOut, code := aplite(t, "", "query", "-o", path, "-format", "csv", cliGoldenQueries[0].apl); code != 0 {
		t.Fatalf("-o: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cliGolden(t, "types.csv", string(b))
}

// A table on a terminal is cut after its first 100 rows with a note of
// how many it left out, byte for byte as testdata/cli/terminal.table.
func TestQueryTerminalGolden(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) is not installed: no terminal to test with")
	}
	in := "logs=" + filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	cmd := exec.Command("script", "-qec", bin+" query -in "+in+" 'logs | sort by _time asc, id asc | project _time, method, status, uri'", "/dev/null")
	var scriptErr bytes.Buffer
	cmd.Stderr = &scriptErr
	tty, err := cmd.Output()
	if err != nil && strings.Contains(scriptErr.String(), "pseudo-terminal") {
		t.Skipf("no pseudo-terminal here: %s", scriptErr.String())
	}
	if err != nil {
		t.Fatalf("script: %v\n%s%s", err, tty, scriptErr.String())
	}
	// Progress on standard error shares the terminal; it ends by clearing
	// its line (\r, erase to the end of the line).
	out := string(tty)
	if i := strings.LastIndex(out, "\x1b[K"); i >= 0 {
		out = out[i+len("\x1b[K"):]
	}
	cliGolden(t, "terminal.table", strings.ReplaceAll(out, "\r\n", "\n"))
}

// cliGolden compares got with testdata/cli/name.
func cliGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "cli", name)
	if *recordCLI {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestQuery.*Golden -record-cli writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}
