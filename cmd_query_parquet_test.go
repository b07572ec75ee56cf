package main

import (
	"path/filepath"
	"testing"
)

// A dynamic column holding numbers and strings is written as text (the
// writer crashed on the numbers).
func TestParquetWritesDynamicColumns(t *testing.T) {
	dir := t.TempDir()
	nd := filepath.Join(dir, "d.ndjson")
	writeFile(t, nd, []byte("{\"s\":1}\n{\"s\":\"x\"}\n{\"s\":true}\n"))
	pq := filepath.Join(dir, "d.parquet")
	if _, errOut, code := aplite(t, "", "query", "-in", "logs="+nd, "-format", "parquet", "-o", pq, "logs | project s"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := sortedCSV(t, "-in", "logs="+pq, "logs | project s")
	if want := "s\n1\ntrue\nx"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
