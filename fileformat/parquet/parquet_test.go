package parquet_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/fileformat/parquet"
	"github.com/aplite/aplite/vector"
)

// events is n NDJSON events with a time, an int, a float, a bool, a
// string, a nested field and a field that is null in most events.
func events(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"_time":"2024-01-01T%02d:%02d:%02dZ","status":%d,"d":%d.5,"ok":%t,"uri":"/a/%d","geo":{"city":"c%d"}`,
			i/3600%24, i/60%60, i%60, 200+i%3, i%10, i%2 == 0, i%7, i%4)
		if i%1000 == 0 {
			fmt.Fprintf(&b, `,"rare":"r%d"`, i)
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

// toParquet stores ndjson and writes every event back out as Parquet.
func toParquet(t testing.TB, ndjson []byte) []byte {
	t.Helper()
	d := db.OpenMemory(db.Options{})
	if _, err := d.Create("e"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Ingest("e", ndjson, ingest.Options{Format: ingest.NDJSON}); err != nil {
		t.Fatal(err)
	}
	res, err := d.Query(context.Background(), &core.Request{APL: "e | order by _time asc", DefaultLimit: -1, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, res); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The browser's way: the footer, then each row group's span alone. Every
// event comes back, with its columns typed as written, and a row group
// whose bytes were not handed over is an error, not zeros.
func TestReadByRanges(t *testing.T) {
	const n = parquet.RowGroupRows + 5000 // two row groups
	file := toParquet(t, events(n))
	size := int64(len(file))
	fs, err := parquet.FooterSize(file[size-parquet.TrailerSize:])
	if err != nil {
		t.Fatal(err)
	}
	var r parquet.Ranges
	r.Add(size-fs, file[size-fs:])
	f, err := parquet.Open(&r, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() != 2 || f.NumRows(0)+f.NumRows(1) != n {
		t.Fatalf("%d row groups of %d and %d rows", f.NumRowGroups(), f.NumRows(0), f.NumRows(1))
	}
	if _, err := f.ReadRowGroup(0, 0); err == nil || !strings.Contains(err.Error(), "were not read") {
		t.Fatalf("a row group read before its bytes were added: %v", err)
	}
	total, rare := 0, 0
	for i := range f.NumRowGroups() {
		for _, c := range f.ChunkRanges(i) {
			if c[0] < 4 || c[1] > size-fs || c[1] <= c[0] {
				t.Fatalf("row group %d reads %d to %d of a %d-byte file with a %d-byte footer", i, c[0], c[1], size, fs)
			}
		}
		rows, err := readGroup(f, &r, file, i)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			checkFirstRow(t, rows)
		}
		total += rows.N
		if c := rows.Column(store.ColKey{Name: "rare", Type: vector.String}); c != nil {
			for j := range rows.N {
				if !c.IsNull(j) {
					rare++
				}
			}
		}
	}
	if total != n || rare != (n+999)/1000 {
		t.Errorf("read %d events (%d with rare), want %d (%d)", total, rare, n, (n+999)/1000)
	}
}

func checkFirstRow(t *testing.T, rows *store.Rows) {
	t.Helper()
	want := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	if rows.Time[0] != want {
		t.Errorf("first _time %d, want %d", rows.Time[0], want)
	}
	for _, c := range []struct {
		key  store.ColKey
		want string
	}{
		{store.ColKey{Name: "status", Type: vector.Int}, "200"},
		{store.ColKey{Name: "d", Type: vector.Float}, "0.5"},
		{store.ColKey{Name: "ok", Type: vector.Bool}, "true"},
		{store.ColKey{Name: "uri", Type: vector.String}, "/a/0"},
		{store.ColKey{Name: "geo.city", Type: vector.String}, "c0"},
	} {
		v := rows.Column(c.key)
		if v == nil {
			t.Errorf("no column %v; have %v", c.key, rows.Keys)
			continue
		}
		var got string
		switch c.key.Type {
		case vector.Int:
			got = fmt.Sprint(v.Ints[0])
		case vector.Float:
			got = fmt.Sprint(v.Floats[0])
		case vector.Bool:
			got = fmt.Sprint(v.Bools[0])
		default:
			got = v.Str(0)
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s", c.key.Name, got, c.want)
		}
	}
}

// A kept subset decodes only those columns, and its spans cover only
// their bytes.
func TestKeepColumns(t *testing.T) {
	file := toParquet(t, events(3000))
	all, err := parquet.Open(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	some, err := parquet.Open(bytes.NewReader(file), int64(len(file)), func(f string) bool { return f == "status" })
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rangeBytes(all.ChunkRanges(0)), rangeBytes(some.ChunkRanges(0)); b >= a {
		t.Errorf("status alone reads %d bytes, every column %d", b, a)
	}
	if k := some.Fields(); len(k) != 1 || k[0].Name != "status" || k[0].Type != vector.Int {
		t.Errorf("fields of status alone: %v", k)
	}
	rows, err := some.ReadRowGroup(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Keys) != 1 || rows.Keys[0].Name != "status" || rows.N != 3000 {
		t.Errorf("kept status: %d rows of %v", rows.N, rows.Keys)
	}
}

// A file that does not end in a Parquet trailer is refused up front.
func TestNotParquet(t *testing.T) {
	if _, err := parquet.FooterSize([]byte("12345678")); err == nil {
		t.Error("FooterSize accepted a trailer without PAR1")
	}
	text := []byte(`{"a":1}` + "\n")
	if _, err := parquet.Open(bytes.NewReader(text), int64(len(text)), nil); err == nil || !strings.Contains(err.Error(), "not a Parquet file") {
		t.Errorf("Open of NDJSON: %v", err)
	}
}

// Ranges answers only from what it holds: a read across two held ranges
// or past them fails, and a range added over another replaces it.
func TestRanges(t *testing.T) {
	var r parquet.Ranges
	r.Add(10, []byte("abcd"))
	r.Add(14, []byte("efgh"))
	b := make([]byte, 3)
	if n, err := r.ReadAt(b, 11); n != 3 || err != nil || string(b) != "bcd" {
		t.Errorf("ReadAt(11) = %d %v %q", n, err, b)
	}
	if _, err := r.ReadAt(b, 13); err == nil {
		t.Error("a read across two ranges was answered")
	}
	r.Add(12, []byte("XY"))
	if _, err := r.ReadAt(b[:2], 10); err == nil {
		t.Error("a replaced range still answered")
	}
	if n, err := r.ReadAt(b[:2], 12); n != 2 || err != nil || string(b[:2]) != "XY" {
		t.Errorf("ReadAt(12) = %d %v %q", n, err, b[:2])
	}
	r.Drop(12)
	if _, err := r.ReadAt(b[:2], 12); err == nil {
		t.Error("a dropped range still answered")
	}
}

// A field whose type changes between events is a dynamic column: it is
// written as text (numbers as JSON) rather than crashing the writer.
func TestWriteDynamic(t *testing.T) {
	file := toParquet(t, []byte(`{"_time":"2024-01-01T00:00:00Z","v":404}
{"_time":"2024-01-01T00:00:01Z","v":"timeout"}
{"_time":"2024-01-01T00:00:02Z","v":[1,"x"]}
`))
	f, err := parquet.Open(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.ReadRowGroup(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := rows.Column(store.ColKey{Name: "v", Type: vector.String})
	if v == nil || rows.N != 3 {
		t.Fatalf("%d rows, columns %v", rows.N, rows.Keys)
	}
	if got := []string{v.Str(0), v.Str(1), v.Str(2)}; !reflect.DeepEqual(got, []string{"404", "timeout", `[1,"x"]`}) {
		t.Errorf("v read back as %q", got)
	}
}

// readGroup reads row group i as the browser does: its chunk ranges are
// added to r, decoded, and dropped.
func readGroup(f *parquet.File, r *parquet.Ranges, file []byte, i int) (*store.Rows, error) {
	cr := f.ChunkRanges(i)
	for _, c := range cr {
		r.Add(c[0], file[c[0]:c[1]])
	}
	defer func() {
		for _, c := range cr {
			r.Drop(c[0])
		}
	}()
	return f.ReadRowGroup(i, 0)
}

func rangeBytes(rs [][2]int64) (n int64) {
	for _, r := range rs {
		n += r[1] - r[0]
	}
	return n
}
