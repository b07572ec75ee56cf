package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// realisticNDJSON writes n HTTP-log-like events: req_duration_ms is a
// long in the first events and a mix of longs and reals later, status is
// sometimes missing and turns into a string near the end (so its type
// widens to dynamic), server_datacenter is missing now and then.
func realisticNDJSON(t *testing.T, path string, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	methods := []string{"GET", "POST", "PUT", "DELETE"}
	uris := []string{"/api/v1/users", "/api/v2/orders", "/static/app.js", "/login", "/api/v2/search", "/health"}
	dcs := []string{"FRA", "IAD", "SIN", "GRU"}
	statuses := []int{200, 200, 200, 201, 204, 301, 404, 500, 503}
	var b strings.Builder
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		f := []string{
			fmt.Sprintf(`"_time":%q`, t0.Add(time.Duration(i)*137*time.Millisecond).Format(time.RFC3339Nano)),
			fmt.Sprintf(`"method":%q`, methods[r.IntN(len(methods))]),
			fmt.Sprintf(`"uri":"%s/%d"`, uris[r.IntN(len(uris))], r.IntN(40)),
		}
		switch {
		case i > n*9/10 && i%50 == 0:
			f = append(f, `"status":"n/a"`)
		case i%23 != 0:
			f = append(f, fmt.Sprintf(`"status":%d`, statuses[r.IntN(len(statuses))]))
		}
		if i < n/5 || r.IntN(2) == 0 {
			f = append(f, fmt.Sprintf(`"req_duration_ms":%d`, r.IntN(900)))
		} else {
			f = append(f, fmt.Sprintf(`"req_duration_ms":%.3f`, r.Float64()*900))
		}
		if i%17 != 0 {
			f = append(f, fmt.Sprintf(`"server_datacenter":%q`, dcs[r.IntN(len(dcs))]))
		}
		b.WriteString("{" + strings.Join(f, ",") + "}\n")
	}
	writeFile(t, path, []byte(b.String()))
}

// referenceQueries are bench/README.md's q1..q7; q5 sorts ties by uri,
// as top 10 may keep any of the groups tied at the tenth count.
var referenceQueries = []string{
	`logs | where status == 500 | count`,
	`logs | summarize count() by status`,
	`logs | summarize avg(req_duration_ms) by method`,
	`logs | summarize count() by bin(_time, 1m)`,
	`logs | summarize count() by uri | sort by count_ desc, uri asc | take 10`,
	`logs | summarize percentile(req_duration_ms, 95) by server_datacenter`,
	`logs | where uri contains "api" | count`,
}

// sortedCSV runs a query and returns its CSV lines sorted, groups coming
// in no set order, with reals to 12 digits: sums in another order differ
// in the last bits.
func sortedCSV(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := aplite(t, "", append([]string{"query", "-format", "csv"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, line := range lines {
		cells := strings.Split(line, ",")
		for j, c := range cells {
			if f, err := strconv.ParseFloat(c, 64); err == nil && strings.Contains(c, ".") {
				cells[j] = strconv.FormatFloat(f, 'g', 12, 64)
			}
		}
		lines[i] = strings.Join(cells, ",")
	}
	slices.Sort(lines[1:])
	return strings.Join(lines, "\n")
}

// Reading a file in place answers the seven reference queries as loading
// it does, over NDJSON cut into many chunks whose types widen, and over
// the same events as Parquet; take N gives N of the file's rows.
func TestQueryInPlaceMatchesLoad(t *testing.T) {
	dir := t.TempDir()
	nd := filepath.Join(dir, "e.ndjson")
	realisticNDJSON(t, nd, 20000)
	pq := filepath.Join(dir, "e.parquet")
	if _, errOut, code := aplite(t, "", "query", "-in", "logs="+nd, "-format", "parquet", "-o", pq, "logs"); code != 0 {
		t.Fatalf("writing Parquet: %s", errOut)
	}
	for _, file := range []string{nd, pq} {
		in := "logs=" + file
		for _, q := range referenceQueries {
			want := sortedCSV(t, "-load", "-in", in, q)
			got := sortedCSV(t, "-chunk-bytes", "64000", "-in", in, q)
			if got != want {
				t.Errorf("%s: %s\nin place:\n%s\nloaded:\n%s", filepath.Base(file), q, got, want)
			}
		}
		all := sortedCSV(t, "-load", "-in", in, "logs | where status == 500 | project uri, method")
		for _, q := range []string{
			"logs | where status == 500 | project uri, method | take 7",
			"logs | where status == 500 | take 7 | project uri, method",
		} {
			got := strings.Split(sortedCSV(t, "-chunk-bytes", "64000", "-in", in, q), "\n")
			if len(got) != 8 {
				t.Fatalf("%s: %d lines, want a header and 7 rows", q, len(got))
			}
			for _, line := range got[1:] {
				if !strings.Contains(all, line) {
					t.Errorf("%s: row %q is not one of the file's", q, line)
				}
			}
		}
	}
}

// A query that names a field the first chunk lacks cannot be planned in
// place; it is answered by loading the file.
func TestQueryInPlaceFallsBackToLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "e.ndjson")
	var b strings.Builder
	for i := range 2000 {
		if i < 1000 {
			fmt.Fprintf(&b, "{\"a\":%d}\n", i)
		} else {
			fmt.Fprintf(&b, "{\"a\":%d,\"late\":\"x%d\"}\n", i, i%3)
		}
	}
	writeFile(t, path, []byte(b.String()))
	q := "logs | summarize count() by late"
	want := "late,count_\n,1000\nx0,333\nx1,334\nx2,333"
	for _, args := range [][]string{{"-load"}, {"-chunk-bytes", "4096"}} {
		if got := sortedCSV(t, append(args, "-in", "logs="+path, q)...); got != want {
			t.Errorf("%v: %s\ngot\n%s\nwant\n%s", args, q, got, want)
		}
	}
}

var chunksRead = regexp.MustCompile(`(\d+) of (\d+) chunks read`)

// Row groups whose min/max statistics rule out a simple filter are not
// read, and the answers equal the unskipped path's.
func TestQueryParquetSkipsRowGroups(t *testing.T) {
	dir := t.TempDir()
	nd := filepath.Join(dir, "e.ndjson")
	var b strings.Builder
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 200_000 { // parquetRowGroup rows a group: 4 groups
		fmt.Fprintf(&b, "{\"_time\":%q,\"n\":%d,\"x\":%g,\"s\":\"k%06d\"}\n", t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i, float64(i)/2, i)
	}
	writeFile(t, nd, []byte(b.String()))
	pq := filepath.Join(dir, "e.parquet")
	if _, errOut, code := aplite(t, "", "query", "-in", "logs="+nd, "-format", "parquet", "-o", pq, "logs | sort by _time asc"); code != 0 {
		t.Fatalf("writing Parquet: %s", errOut)
	}
	cases := []struct {
		q    string
		read string
	}{
		{"logs | where n == 5000000 | count", "0 of 4"},
		{"logs | where x > 1e9 | count", "0 of 4"},
		{`logs | where s == "zzz" | count`, "0 of 4"},
		{"logs | where n in (-1, -2) or x < -5 | count", "0 of 4"},
		{"logs | where n == 70000 | count", "1 of 4"},
		{`logs | where s in ("k000003", "k199999") | summarize max(n)`, "2 of 4"},
		{"logs | where n >= 131072 and x >= 0 | summarize count(), sum(n)", "2 of 4"},
		{"logs | summarize count()", "4 of 4"},
	}
	for _, c := range cases {
		want := sortedCSV(t, "-load", "-in", "logs="+pq, c.q)
		out, errOut, code := aplite(t, "", "query", "-timing", "-format", "csv", "-in", "logs="+pq, c.q)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.q, code, errOut)
		}
		if got := strings.TrimSpace(out); got != want {
			t.Errorf("%s: %s, want %s", c.q, got, want)
		}
		m := chunksRead.FindStringSubmatch(errOut)
		if m == nil || m[1]+" of "+m[2] != c.read {
			t.Errorf("%s: %q, want %s chunks read", c.q, errOut, c.read)
		}
	}
}

// peakRSS runs aplite and returns its peak resident memory in bytes.
func peakRSS(t *testing.T, args ...string) int64 {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v: %s", args, err, errb.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this system")
	}
	return ru.Maxrss << 10 // KiB on Linux
}

// assertFlatRSS runs `aplite query -chunk-bytes 262144 ARGS... -in
// logs=FILE Q` (q is the last of args) over a file of 60,000 and one of
// 240,000 small events, written in dir, and fails when the larger needs
// more than 8 MiB more at its peak: memory that follows the chunk, not
// the file.
func assertFlatRSS(t *testing.T, dir string, args ...string) {
	t.Helper()
	write := func(path string, n int) {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "{\"k\":\"group-%d\",\"d\":%d.25,\"pad\":\"%0100d\"}\n", i%300, i%1000, i)
		}
		writeFile(t, path, b.Bytes())
	}
	small, large := filepath.Join(dir, "s.ndjson"), filepath.Join(dir, "l.ndjson")
	write(small, 60_000)  // ~9.6 MB
	write(large, 240_000) // ~38 MB
	opts, q := args[:len(args)-1], args[len(args)-1]
	run := func(path string) int64 {
		a := append([]string{"query", "-chunk-bytes", "262144"}, opts...)
		return peakRSS(t, append(a, "-in", "logs="+path, q)...)
	}
	rs, rl := run(small), run(large)
	t.Logf("peak RSS: %d MiB for 9.6 MB, %d MiB for 38 MB", rs>>20, rl>>20)
	if rl-rs > 8<<20 {
		t.Errorf("peak RSS grew by %d MiB for 29 MB more file (%d MiB, then %d MiB)", (rl-rs)>>20, rs>>20, rl>>20)
	}
}

// Reading a file in place holds a few chunks at a time: a file four times
// larger (and many times the chunk size) needs about the same memory.
func TestQueryInPlaceMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 48 MB")
	}
	assertFlatRSS(t, t.TempDir(), "-o", os.DevNull, "logs | summarize count(), avg(d) by k")
}

// Queries that return raw events (no summarize or project) read the file
// in place too: their answers are the loaded file's, and a file four
// times larger needs about the same memory when few events match.
func TestQueryRawEventsInPlace(t *testing.T) {
	dir := t.TempDir()
	nd := filepath.Join(dir, "e.ndjson")
	realisticNDJSON(t, nd, 20000)
	for _, q := range []string{
		"logs | where status == 500 | project-away _sysTime",
		"logs | sort by _time desc | take 5 | project-away _sysTime",
		"logs | where method == 'PUT' and uri startswith '/login' | extend d2 = req_duration_ms * 2 | project-away _sysTime",
	} {
		want := sortedCSV(t, "-load", "-in", "logs="+nd, q)
		if got := sortedCSV(t, "-chunk-bytes", "64000", "-in", "logs="+nd, q); got != want {
			t.Errorf("%s\nin place:\n%s\nloaded:\n%s", q, got, want)
		}
	}
	if testing.Short() {
		t.Skip("writes 48 MB")
	}
	assertFlatRSS(t, dir, "-o", os.DevNull, `logs | where k == "group-7" and d < 10`)
}

// Exporting a file whole as Parquet reads it chunk by chunk: the file
// holds the events a load writes, with the types unified over every
// chunk (status turns dynamic near the end), and a file four times larger
// needs about the same memory.
func TestQueryExportParquetInChunks(t *testing.T) {
	dir := t.TempDir()
	nd := filepath.Join(dir, "e.ndjson")
	realisticNDJSON(t, nd, 20000)
	loaded, chunked := filepath.Join(dir, "l.parquet"), filepath.Join(dir, "c.parquet")
	for _, args := range [][]string{{"-load", "-o", loaded}, {"-chunk-bytes", "64000", "-o", chunked}} {
		if _, errOut, code := aplite(t, "", append([]string{"query", "-format", "parquet", "-in", "logs=" + nd}, append(args, "logs")...)...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	for _, q := range []string{"logs | getschema", "logs | project-away _sysTime"} {
		want := sortedCSV(t, "-in", "logs="+loaded, q)
		if got := sortedCSV(t, "-in", "logs="+chunked, q); got != want {
			t.Errorf("%s over the chunked export:\n%.2000s\nover the loaded one:\n%.2000s", q, got, want)
		}
	}
	if testing.Short() {
		t.Skip("writes 48 MB")
	}
	assertFlatRSS(t, dir, "-format", "parquet", "-o", filepath.Join(dir, "out.parquet"), "logs")
	// assertFlatRSS left the larger file, l.ndjson, in dir.
	// The query holds one chunk's rows at a time, well under its budget.
	if _, errOut, code := aplite(t, "", "query", "-chunk-bytes", "262144", "-query-memory", "4M", "-format", "parquet", "-o", filepath.Join(dir, "out.parquet"), "-in", "logs="+filepath.Join(dir, "l.ndjson"), "logs"); code != 0 {
		t.Errorf("exporting 38 MB with 4 MB of query memory: %s", errOut)
	}
}

// A plain NDJSON file is mapped and cut into chunks in place: lines
// longer than a chunk, blank lines, a last line without its newline and
// trailing blanks all count as when the file is loaded.
func TestQueryMappedChunks(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "{\"i\":%d,\"pad\":%q}\n", i, strings.Repeat("x", i%7*90))
		if i%50 == 0 {
			b.WriteString("\n  \n")
		}
	}
	body := b.String()
	for name, text := range map[string]string{
		"newline.ndjson":   body,
		"nonewline.ndjson": strings.TrimSuffix(body, "\n"),
		"trailing.ndjson":  body + "\n\n   \n",
	} {
		path := filepath.Join(dir, name)
		writeFile(t, path, []byte(text))
		q := "logs | summarize count(), sum(i), max(strlen(pad))"
		want := sortedCSV(t, "-load", "-in", "logs="+path, q)
		if want != "count_,sum_i,max_\n500,124750,540" {
			t.Fatalf("%s loaded: %q", name, want)
		}
		for _, chunk := range []string{"100", "700", "4096"} {
			if got := sortedCSV(t, "-chunk-bytes", chunk, "-in", "logs="+path, q); got != want {
				t.Errorf("%s in chunks of %s bytes: %q, want %q", name, chunk, got, want)
			}
		}
	}
}
