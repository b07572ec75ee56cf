package parquet_test

import (
	"bytes"
	"testing"

	"github.com/aplite/aplite/fileformat/parquet"
)

// FuzzRead reads arbitrary bytes as a Parquet file: a file dropped on the
// console or named with -in is untrusted, and a panic there ends the
// browser's engine or the command. Open and ReadRowGroup must fail with
// an error, never panic, and a file that reads must give rows of the
// length its footer promised.
func FuzzRead(f *testing.F) {
	f.Add(toParquet(f, events(50)))
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := parquet.Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return
		}
		_ = pf.Fields()
		for i := range min(pf.NumRowGroups(), 4) {
			pf.RowGroupStats(i)
			pf.ChunkRanges(i)
			rows, err := pf.ReadRowGroup(i, 0)
			if err != nil {
				continue
			}
			if int64(rows.N) != pf.NumRows(i) {
				t.Fatalf("row group %d: %d rows, footer says %d", i, rows.N, pf.NumRows(i))
			}
		}
	})
}
