package session

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/fileformat/parquet"
)

// parquetOf writes what ndjson loads as Parquet, as `aplite query
// -format parquet` does.
func parquetOf(t *testing.T, ndjson []byte) []byte {
	t.Helper()
	s := New()
	if _, err := s.Load("src", ndjson, LoadOptions{Format: NDJSON}); err != nil {
		t.Fatal(err)
	}
	res, err := s.db.Query(context.Background(), &core.Request{APL: "src", DefaultLimit: -1, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, res); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func statusCounts(t *testing.T, s *Session, ds string) [][]any {
	t.Helper()
	tr, err := s.Query(context.Background(), "['"+ds+"'] | summarize count() by status | order by status asc", QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Tables[0].Columns
}

// A Parquet file streamed the way the worker reads it (its footer, then
// one row group's bytes at a time) answers as the NDJSON it was made
// from, and so does the same file loaded whole.
func TestParquetStreamed(t *testing.T) {
	var nd strings.Builder
	for i := range parquet.RowGroupRows + 3000 {
		nd.WriteString(`{"_time":"2024-01-01T00:00:00Z","status":` + []string{"200", "404", "500"}[i%3] + `,"uri":"/x"}` + "\n")
	}
	file := parquetOf(t, []byte(nd.String()))
	s := New()
	if _, err := s.Load("src", []byte(nd.String()), LoadOptions{Format: NDJSON}); err != nil {
		t.Fatal(err)
	}
	want := statusCounts(t, s, "src")

	size := int64(len(file))
	fs, err := parquet.FooterSize(file[size-parquet.TrailerSize:])
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.BeginParquet("p", size, file[size-fs:], nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	groups := l.RowGroups()
	if len(groups) != 2 {
		t.Fatalf("%d row groups, want 2", len(groups))
	}
	short := parts(file, groups[0])
	short[0] = short[0][1:]
	if _, err := l.RowGroupData(0, short); err == nil {
		t.Error("a short row group was accepted")
	}
	if _, err := l.RowGroupData(2, nil); err == nil {
		t.Error("a row group past the last was accepted")
	}
	for i, g := range groups {
		if _, err := l.RowGroupData(i, parts(file, g)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := l.End()
	if err != nil || res.Ingested != parquet.RowGroupRows+3000 || res.Format != Parquet {
		t.Fatalf("streamed: %+v %v", res, err)
	}
	if got := statusCounts(t, s, "p"); !reflect.DeepEqual(got, want) {
		t.Errorf("streamed Parquet counts %v, NDJSON %v", got, want)
	}

	if Detect(file) != Parquet || FormatFromFileName("x.PARQUET") != Parquet {
		t.Error("a Parquet file is not recognised by its bytes or its name")
	}
	if r, err := s.Load("whole", file, LoadOptions{}); err != nil || r.Ingested != parquet.RowGroupRows+3000 {
		t.Fatalf("whole: %+v %v", r, err)
	}
	if got := statusCounts(t, s, "whole"); !reflect.DeepEqual(got, want) {
		t.Errorf("whole Parquet counts %v, NDJSON %v", got, want)
	}
}

// A file that is not Parquet leaves the dataset of that name as it was.
func TestParquetRefused(t *testing.T) {
	s := New()
	if _, err := s.Load("p", []byte(`{"status":1}`), LoadOptions{Format: NDJSON}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginParquet("p", 100, []byte("not parquet at all"), nil, time.Time{}); err == nil {
		t.Fatal("BeginParquet accepted a file that does not end in PAR1")
	}
	if got := statusCounts(t, s, "p"); len(got[0]) != 1 {
		t.Errorf("the earlier dataset was changed: %v", got)
	}
	if _, err := s.BeginLoad("p", Parquet, time.Time{}); err == nil || !strings.Contains(err.Error(), "BeginParquet") {
		t.Errorf("BeginLoad of Parquet: %v", err)
	}
}

// parts reads a row group's byte ranges out of file, as the worker does
// with File.slice.
func parts(file []byte, g RowGroup) [][]byte {
	out := make([][]byte, len(g.Ranges))
	for i, r := range g.Ranges {
		out[i] = file[r[0]:r[1]]
	}
	return out
}

// loadParquetFields streams file into dataset name reading only fields
// (nil: all), as the worker does.
func loadParquetFields(t *testing.T, s *Session, name string, file []byte, fields []string) {
	t.Helper()
	size := int64(len(file))
	fs, err := parquet.FooterSize(file[size-parquet.TrailerSize:])
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.BeginParquet(name, size, file[size-fs:], fields, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range l.RowGroups() {
		if _, err := l.RowGroupData(i, parts(file, g)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.End(); err != nil {
		t.Fatal(err)
	}
}

// A Parquet dataset loaded with _time alone lists every field of the
// file, and a query names the columns it needs, which then load; a query
// over another dataset, or one that does not parse, needs nothing.
func TestParquetColumnsOnDemand(t *testing.T) {
	var nd strings.Builder
	for i := range 3000 {
		nd.WriteString(`{"_time":"2024-01-01T00:00:00Z","status":` + []string{"200", "404", "500"}[i%3] + `,"uri":"/x","geo":{"city":"c"}}` + "\n")
	}
	file := parquetOf(t, []byte(nd.String()))
	s := New()
	if _, err := s.Load("src", []byte(nd.String()), LoadOptions{Format: NDJSON}); err != nil {
		t.Fatal(err)
	}
	loadParquetFields(t, s, "p", file, []string{})
	ds := s.Datasets()
	i := slices.IndexFunc(ds, func(d Dataset) bool { return d.Name == "p" })
	if i < 0 || ds[i].NumEvents != 3000 || !slices.Contains(ds[i].Fields, Field{Name: "geo.city", Type: "string"}) ||
		!slices.Contains(ds[i].Fields, Field{Name: "status", Type: "integer"}) {
		t.Fatalf("datasets: %+v", ds)
	}
	q := "['p'] | summarize count() by status | order by status asc"
	needs := s.ParquetNeeds(q)
	if !reflect.DeepEqual(needs, []Need{{Dataset: "p", Fields: []string{"status"}}}) {
		t.Fatalf("%s needs %+v", q, needs)
	}
	for _, apl := range []string{"['src'] | summarize count() by status", "['p'] | where", "['p'] | count"} {
		if n := s.ParquetNeeds(apl); len(n) != 0 {
			t.Errorf("%s needs %+v", apl, n)
		}
	}
	if n := s.ParquetNeeds("['p'] | take 1"); !reflect.DeepEqual(n, []Need{{Dataset: "p", Rows: 1}}) {
		t.Errorf("a take needs %+v, want every column of its first rows", n)
	}
	if n := s.ParquetNeeds("['p'] | sort by uri"); !reflect.DeepEqual(n, []Need{{Dataset: "p"}}) {
		t.Errorf("a query of raw events needs %+v, want every column", n)
	}
	loadParquetFields(t, s, "p", file, needs[0].Fields)
	if n := s.ParquetNeeds(q); len(n) != 0 {
		t.Errorf("after loading status, %s still needs %+v", q, n)
	}
	if n := s.ParquetNeeds("['p'] | summarize dcount(geo.city) by status"); !reflect.DeepEqual(n, []Need{{Dataset: "p", Fields: []string{"geo.city", "status"}}}) {
		t.Errorf("geo.city: needs %+v", n)
	}
	if got, want := statusCounts(t, s, "p"), statusCounts(t, s, "src"); !reflect.DeepEqual(got, want) {
		t.Errorf("Parquet counts %v, NDJSON %v", got, want)
	}
	if err := s.Drop("p"); err != nil {
		t.Fatal(err)
	}
	if n := s.ParquetNeeds("['p'] | take 1"); len(n) != 0 {
		t.Errorf("a dropped dataset needs %+v", n)
	}
}

// A take of N rows of a Parquet dataset loaded with _time alone reads
// every column of the first row groups holding N rows, not the file; the
// sidebar still counts the whole file, and a later query that needs more
// reads the file again and answers over every row.
func TestParquetTakeReadsFirstRowGroups(t *testing.T) {
	var nd strings.Builder
	n := 2*parquet.RowGroupRows + 500 // three row groups
	for i := range n {
		fmt.Fprintf(&nd, `{"_time":"2024-01-01T00:%02d:00Z","status":%s,"uri":"/x/%d"}`+"\n", i%60, []string{"200", "404", "500"}[i%3], i)
	}
	file := parquetOf(t, []byte(nd.String()))
	size := int64(len(file))
	s := New()
	loadParquetFields(t, s, "p", file, []string{})
	take := "['p'] | where status != 0 | take 100"
	needs := s.ParquetNeeds(take)
	if !reflect.DeepEqual(needs, []Need{{Dataset: "p", Rows: 100}}) {
		t.Fatalf("%s needs %+v", take, needs)
	}
	fs, err := parquet.FooterSize(file[size-parquet.TrailerSize:])
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.BeginParquetFirst("p", size, file[size-fs:], needs[0].Rows, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if g := l.RowGroups(); len(g) != 1 {
		t.Fatalf("take 100 reads %d row groups, want the first", len(g))
	}
	if _, err := l.RowGroupData(0, parts(file, l.RowGroups()[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := l.End(); err != nil {
		t.Fatal(err)
	}
	tr, err := s.Query(context.Background(), take, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cols := tr.Tables[0].Fields
	if rows := len(tr.Tables[0].Columns[0]); rows != 100 || !slices.ContainsFunc(cols, func(f render.TabularField) bool { return f.Name == "uri" }) {
		t.Errorf("%s: %d rows, fields %+v", take, rows, cols)
	}
	if ds := s.Datasets(); len(ds) != 1 || ds[0].NumEvents != int64(n) || ds[0].MaxTime != "2024-01-01T00:59:00Z" {
		t.Errorf("with the first row group loaded, the dataset shows as %+v, want the file's %d events", ds, n)
	}
	if needs := s.ParquetNeeds("['p'] | take 7"); len(needs) != 0 {
		t.Errorf("take 7 after take 100 needs %+v", needs)
	}
	if needs := s.ParquetNeeds("['p'] | take 70000"); !reflect.DeepEqual(needs, []Need{{Dataset: "p", Rows: 70000}}) {
		t.Errorf("take 70000 after take 100 needs %+v", needs)
	}
	q := "['p'] | summarize count() by status"
	needs = s.ParquetNeeds(q)
	if !reflect.DeepEqual(needs, []Need{{Dataset: "p", Fields: []string{"status"}}}) {
		t.Fatalf("%s after a take needs %+v, want the file again", q, needs)
	}
	loadParquetFields(t, s, "p", file, needs[0].Fields)
	var total int64
	for _, row := range statusCounts(t, s, "p")[1] {
		total += row.(int64)
	}
	if total != int64(n) {
		t.Errorf("%s counts %d events, want %d", q, total, n)
	}
}
