package parquet

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// A Snappy page whose body claims more bytes than its header is refused
// before the decoder allocates the claim; a sound page passes, with or
// without the uncompressed levels of a version 2 page before it.
func TestCheckSnappy(t *testing.T) {
	good := snappy.Encode(nil, bytes.Repeat([]byte("abc"), 100))
	bad := binary.AppendUvarint(nil, 1<<31)
	bad = append(bad, good[binary.PutUvarint(make([]byte, 10), 300):]...)
	levels := []byte{1, 2, 3, 4}
	for _, c := range []struct {
		name string
		body []byte
		v2   bool
		ok   bool
	}{
		{"v1 sound", good, false, true},
		{"v1 claims 2 GiB", bad, false, false},
		{"v2 sound", append(append([]byte{}, levels...), good...), true, true},
		{"v2 claims 2 GiB", append(append([]byte{}, levels...), bad...), true, false},
	} {
		h := format.PageHeader{CompressedPageSize: int32(len(c.body)), UncompressedPageSize: 300}
		if c.v2 {
			h.UncompressedPageSize += int32(len(levels))
			h.DataPageHeaderV2.Valid = true
			h.DataPageHeaderV2.V.DefinitionLevelsByteLength = int32(len(levels))
		}
		err := checkSnappy(bytes.NewReader(c.body), 0, &h)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
