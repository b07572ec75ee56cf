package parquet_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/fileformat/parquet"
	"github.com/aplite/aplite/vector"
)

// foreign is a file as other writers make them: millisecond timestamps,
// dictionary-encoded and snappy-compressed strings, 32-bit numbers, a
// DATE, a nested group, a list, and many small row groups and pages.
type foreign struct {
	Time   time.Time `parquet:"_time,timestamp(millisecond)"`
	Method string    `parquet:"method,dict,snappy"`
	Status int32     `parquet:"status"`
	Ratio  float32   `parquet:"ratio"`
	Day    int32     `parquet:"day,date"`
	Geo    struct {
		City string `parquet:"city,dict"`
	} `parquet:"geo"`
	Tags []string `parquet:"tags,list"`
	Note *string  `parquet:"note,optional"`
}

// A file from another writer reads by byte ranges too: each row group's
// ChunkRanges cover its dictionary pages, nested fields get dotted names, and
// the list is reported, not read.
func TestReadForeign(t *testing.T) {
	const n = 5000
	start := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]foreign, n)
	for i := range rows {
		r := &rows[i]
		r.Time = start.Add(time.Duration(i) * time.Second)
		r.Method = []string{"GET", "POST", "PUT"}[i%3]
		r.Status = int32(200 + i%5)
		r.Ratio = float32(i%4) / 4
		r.Day = int32(19844 + i%2) // 2024-05-01, 2024-05-02
		r.Geo.City = fmt.Sprintf("c%d", i%7)
		r.Tags = []string{"a", "b"}
		if i%10 == 0 {
			s := fmt.Sprint(i)
			r.Note = &s
		}
	}
	var buf bytes.Buffer
	w := pq.NewGenericWriter[foreign](&buf, pq.MaxRowsPerRowGroup(1200), pq.PageBufferSize(2048))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	size := int64(len(file))
	if !hasDictionary(t, file) {
		t.Fatal("the file has no dictionary page: the test would not cover the dictionary offsets of ChunkRanges")
	}
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
	if sk := f.Skipped(); len(sk) != 1 || sk[0] != "tags.list.element" {
		t.Errorf("skipped %v, want the list", sk)
	}
	got := map[string]int{}
	notes, total := 0, 0
	for i := range f.NumRowGroups() {
		b, err := readGroup(f, &r, file, i)
		if err != nil {
			t.Fatalf("row group %d of %d: %v", i, f.NumRowGroups(), err)
		}
		for j := range b.N {
			row := total + j
			want := rows[row]
			if b.Time[j] != want.Time.UnixNano() {
				t.Fatalf("row %d: _time %d, want %d", row, b.Time[j], want.Time.UnixNano())
			}
			for _, c := range []struct {
				key  store.ColKey
				want any
			}{
				{store.ColKey{Name: "method", Type: vector.String}, want.Method},
				{store.ColKey{Name: "status", Type: vector.Int}, int64(want.Status)},
				{store.ColKey{Name: "ratio", Type: vector.Float}, float64(want.Ratio)},
				{store.ColKey{Name: "day", Type: vector.DateTime}, time.Unix(0, 0).AddDate(0, 0, int(want.Day)).UnixNano()},
				{store.ColKey{Name: "geo.city", Type: vector.String}, want.Geo.City},
			} {
				v := b.Column(c.key)
				if v == nil {
					t.Fatalf("no column %v in %v", c.key, b.Keys)
				}
				var g any
				switch c.key.Type {
				case vector.String:
					g = v.Str(j)
				case vector.Float:
					g = v.Floats[j]
				default:
					g = v.Ints[j]
				}
				if g != c.want {
					t.Fatalf("row %d: %s = %v, want %v", row, c.key.Name, g, c.want)
				}
				got[c.key.Name]++
			}
			if v := b.Column(store.ColKey{Name: "note", Type: vector.String}); v != nil && !v.IsNull(j) {
				notes++
			}
		}
		total += b.N
	}
	if total != n || notes != n/10 || f.NumRowGroups() < 4 {
		t.Errorf("%d rows in %d row groups, %d notes; want %d rows, %d notes", total, f.NumRowGroups(), notes, n, n/10)
	}
}

func hasDictionary(t *testing.T, file []byte) bool {
	pf, err := pq.OpenFile(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.DictionaryPageOffset != 0 {
				return true
			}
		}
	}
	return false
}
