package parquet_test

import (
	"bytes"
	"testing"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/fileformat/parquet"
)

// BenchmarkReadRowGroup decodes every row group of two row groups of
// bench/gen's realistic events written by Write: what a Parquet load in
// the browser does per row group, natively.
func BenchmarkReadRowGroup(b *testing.B) {
	const n = 2 * parquet.RowGroupRows
	file := toParquet(b, gen.NDJSONWith(1, n, gen.Real))
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f, err := parquet.Open(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := range f.NumRowGroups() {
			if _, err := f.ReadRowGroup(i, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
