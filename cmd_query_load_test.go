package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A query over a file answers the same with and without projection, for
// NDJSON split over several chunks, gzip and zstd.
func TestQueryFileStreams(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&body, "{\"_time\":\"2024-01-01T00:%02d:%02dZ\",\"status\":%d,\"d\":%d.5,\"uri\":\"/a/%d\",\"geo\":{\"city\":\"c%d\"}}\n",
			i/60%60, i%60, 200+i%3, i%100, i, i%5)
	}
	plain := dir + "/e.ndjson"
	writeFile(t, plain, []byte(body.String()))
	gz := dir + "/e.ndjson.gz"
	writeFile(t, gz, gzipBytes(t, []byte(body.String())))
	zs := dir + "/e.ndjson.zst"
	writeFile(t, zs, zstdBytes(t, []byte(body.String())))
	for _, path := range []string{plain, gz, zs} {
		out, errOut, code := aplite(t, "", "query", "-format", "csv", "-in", "logs="+path,
			"logs | where geo.city == 'c1' | summarize n = count(), s = sum(d) by status | order by status asc")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errOut)
		}
		want := "status,n,s\n200,200,9800\n201,200,9800\n202,200,9800\n"
		if out != want {
			t.Errorf("%s:\n%s\nwant\n%s", path, out, want)
		}
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zstdBytes(t *testing.T, b []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.EncodeAll(b, nil)
}

// A result written as Parquet reads back with the same answers; a time
// window skips row groups by their _time statistics; the file is
// compressed.
func TestParquetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	for i := 0; i < 70000; i++ { // two row groups
		fmt.Fprintf(&body, "{\"_time\":\"2024-01-01T%02d:%02d:%02dZ\",\"status\":%d,\"d\":%d.25,\"uri\":\"/a/%d\",\"ok\":%t,\"geo\":{\"city\":\"c%d\"}}\n",
			i/3600%24, i/60%60, i%60, 200+i%3, i%100, i%50, i%2 == 0, i%5)
	}
	src := dir + "/e.ndjson"
	writeFile(t, src, []byte(body.String()))
	pq := dir + "/e.parquet"
	if _, errOut, code := aplite(t, "", "query", "-format", "parquet", "-o", pq, "-in", "logs="+src, "logs | order by _time asc | take 100000"); code != 0 {
		t.Fatalf("write: %d %s", code, errOut)
	}
	st, err := os.Stat(pq)
	if err != nil || st.Size() > int64(body.Len())/4 {
		t.Fatalf("parquet file: %v, %d bytes for %d of NDJSON", err, st.Size(), body.Len())
	}
	q := "logs | where geo.city == 'c1' | summarize n = count(), s = sum(d), t = countif(ok), u = dcount(uri) by status | order by status asc"
	want, errOut, code := aplite(t, "", "query", "-format", "csv", "-in", "logs="+src, q)
	if code != 0 {
		t.Fatal(errOut)
	}
	got, errOut, code := aplite(t, "", "query", "-format", "csv", "-in", "logs="+pq, q)
	if code != 0 || got != want {
		t.Fatalf("parquet answers %q (%s), NDJSON %q", got, errOut, want)
	}
	// The last hours are in the second row group only.
	w2, _, _ := aplite(t, "", "query", "-format", "csv", "-start", "2024-01-01T19:00:00Z", "-in", "logs="+src, "logs | count")
	g2, errOut, code := aplite(t, "", "query", "-format", "csv", "-start", "2024-01-01T19:00:00Z", "-in", "logs="+pq, "logs | count")
	if code != 0 || g2 != w2 {
		t.Fatalf("windowed: parquet %q (%s), NDJSON %q", g2, errOut, w2)
	}
}

func TestQueryTiming(t *testing.T) {
	out, errOut, code := aplite(t, "", "query", "-timing", "-in", "logs=testdata/fixtures/http-logs.ndjson", "logs | count")
	if code != 0 || !strings.Contains(out, "200") || !strings.Contains(errOut, "timing: load") || !strings.Contains(errOut, "200 rows examined") {
		t.Fatalf("-timing: %d %q %q", code, out, errOut)
	}
	if _, errOut, _ := aplite(t, "", "query", "-in", "logs=testdata/fixtures/http-logs.ndjson", "logs | count"); strings.Contains(errOut, "timing") {
		t.Errorf("timing printed without -timing: %q", errOut)
	}
}

// `T | where ... | take N` over a file stops reading it once the rows
// loaded so far give N answers (rows examined shows what was loaded); any
// other query reads the whole file.
func TestQueryTakeStopsEarly(t *testing.T) {
	path := t.TempDir() + "/big.ndjson"
	var b strings.Builder
	const n = 60000 // about 3 chunks of NDJSON
	pad := strings.Repeat("x", 400)
	for i := range n {
		fmt.Fprintf(&b, "{\"i\":%d,\"even\":%t,\"pad\":%q}\n", i, i%2 == 0, pad)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	examined := func(errOut string) int {
		var rows int
		if i := strings.Index(errOut, "("); i >= 0 {
			fmt.Sscanf(errOut[i+1:], "%d rows examined", &rows)
		}
		return rows
	}
	out, errOut, code := aplite(t, "", "query", "-timing", "-format", "ndjson", "-in", "big="+path, "big | where even | project i | take 5")
	if code != 0 || strings.Count(out, "\n") != 5 {
		t.Fatalf("take 5: %d %q %q", code, out, errOut)
	}
	if r := examined(errOut); r == 0 || r >= n {
		t.Errorf("take 5 loaded %d of %d events; want the first chunk or two (%q)", r, n, errOut)
	}
	_, errOut, code = aplite(t, "", "query", "-timing", "-in", "big="+path, "big | where even | count")
	if r := examined(errOut); code != 0 || r != n {
		t.Errorf("count loaded %d of %d events (%q)", r, n, errOut)
	}
}
