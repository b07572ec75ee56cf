package parquet_test

import (
	"bytes"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/fileformat/parquet"
	"github.com/aplite/aplite/vector"
)

// numRow has number and time leaves, required and optional.
type numRow struct {
	Time  time.Time `parquet:"_time,timestamp(microsecond)"`
	I64   *int64    `parquet:"i64,optional"`
	I32   int32     `parquet:"i32,delta"`
	F32   *float32  `parquet:"f32,optional"`
	F64   float64   `parquet:"f64"`
	Day   *int32    `parquet:"day,optional,date"`
	Stamp *int64    `parquet:"stamp,optional,timestamp(millisecond)"`
}

// Number and time pages, version 1 and 2, with nulls, read as the values
// written: the typed path (typed.go) and the value path must agree.
func TestReadNumbers(t *testing.T) {
	const n = 3000
	start := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]numRow, n)
	for i := range rows {
		r := &rows[i]
		r.Time = start.Add(time.Duration(i) * time.Millisecond)
		r.I32 = int32(-i)
		r.F64 = float64(i) / 8
		if i%7 != 0 {
			i64, f32, day, stamp := int64(i)<<40, float32(i)/4, int32(19844+i%3), int64(1714521600000+i)
			r.I64, r.F32, r.Day, r.Stamp = &i64, &f32, &day, &stamp
		}
	}
	for _, version := range []int{1, 2} {
		var buf bytes.Buffer
		w := pq.NewGenericWriter[numRow](&buf, pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(1024), pq.DataPageVersion(version))
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := parquet.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		row := 0
		for g := range f.NumRowGroups() {
			b, err := f.ReadRowGroup(g, 0)
			if err != nil {
				t.Fatalf("v%d row group %d: %v", version, g, err)
			}
			col := func(name string, typ vector.Type) *vector.Vector {
				v := b.Column(store.ColKey{Name: name, Type: typ})
				if v == nil || v.Len != b.N {
					t.Fatalf("v%d: column %s %v missing or short in %v", version, name, typ, b.Keys)
				}
				return v
			}
			i64, i32, f32 := col("i64", vector.Int), col("i32", vector.Int), col("f32", vector.Float)
			f64, day, stamp := col("f64", vector.Float), col("day", vector.DateTime), col("stamp", vector.DateTime)
			for j := range b.N {
				w := rows[row]
				if b.Time[j] != w.Time.UnixNano() || i32.Ints[j] != int64(w.I32) || f64.Floats[j] != w.F64 {
					t.Fatalf("v%d row %d: _time %d, i32 %d, f64 %v; want %+v", version, row, b.Time[j], i32.Ints[j], f64.Floats[j], w)
				}
				if null := w.I64 == nil; i64.IsNull(j) != null || f32.IsNull(j) != null || day.IsNull(j) != null || stamp.IsNull(j) != null {
					t.Fatalf("v%d row %d: nulls differ from the file's (null: %t)", version, row, null)
				}
				if w.I64 != nil {
					wantDay := time.Unix(0, 0).AddDate(0, 0, int(*w.Day)).UnixNano()
					if i64.Ints[j] != *w.I64 || f32.Floats[j] != float64(*w.F32) || day.Ints[j] != wantDay || stamp.Ints[j] != *w.Stamp*int64(time.Millisecond) {
						t.Fatalf("v%d row %d: %d %v %d %d; want %+v", version, row, i64.Ints[j], f32.Floats[j], day.Ints[j], stamp.Ints[j], w)
					}
				}
				row++
			}
		}
		if row != n {
			t.Errorf("v%d: %d rows, want %d", version, row, n)
		}
	}
}
