package parquet

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// maxPageBytes bounds the size a page header may claim, compressed or
// not. parquet-go allocates a page's buffers from its header before it
// decompresses, so a damaged header claiming 32 GiB is an allocation the
// runtime cannot survive (no recover catches it: FuzzRead found one in an
// LZ4 page). Writers cut pages of a few MiB at most; 256 MiB leaves room.
const maxPageBytes = 256 << 20

// checkPages reads the page headers of the column chunk in [start, end)
// of r, and refuses a chunk whose headers claim more bytes than the bound
// or run past the chunk, before parquet-go sizes anything from them.
//
// LZ4_RAW pages are also decompressed here, into a buffer of the size
// their header gives: parquet-go's LZ4 decoder doubles its buffer for as
// long as a block fails to decode, so damaged LZ4 data ends in an
// allocation the process cannot survive instead of an error.
//
// The pages may also hold no more values than the chunk (values, from
// the footer, and no more than the row group's rows for the unrepeated
// leaves read here): parquet-go sizes its buffers by the value counts of
// page headers too, and pads a dictionary-encoded page's indexes to its
// count. A dictionary header claiming 2^31 values asked FuzzRead's
// workers for 32 GiB, and many small pages each claiming the row group
// made one input decode for minutes.
func checkPages(r io.ReaderAt, codec format.CompressionCodec, start, end, values int64) error {
	var proto thrift.CompactProtocol
	seen := int64(0) // the values of the data pages so far
	for off := start; off < end; {
		cr := &countReader{r: io.NewSectionReader(r, off, end-off)}
		br := bufio.NewReaderSize(cr, 512)
		var h format.PageHeader
		if err := thrift.NewDecoder(proto.NewReader(br)).Decode(&h); err != nil {
			return fmt.Errorf("%w: page header at byte %d: %v", ErrDamaged, off, err)
		}
		if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 ||
			h.CompressedPageSize > maxPageBytes || h.UncompressedPageSize > maxPageBytes {
			return fmt.Errorf("%w: page at byte %d claims %d bytes (%d uncompressed)",
				ErrDamaged, off, h.CompressedPageSize, h.UncompressedPageSize)
		}
		n := pageValues(&h)
		if !h.DictionaryPageHeader.Valid {
			seen += n
		}
		if n < 0 || n > values || seen > values {
			return fmt.Errorf("%w: page at byte %d claims %d values, past the chunk's %d", ErrDamaged, off, n, values)
		}
		body := off + cr.n - int64(br.Buffered())
		next := body + int64(h.CompressedPageSize)
		if next > end {
			return fmt.Errorf("%w: a page runs past its column chunk (byte %d of %d)", ErrDamaged, next, end)
		}
		if codec == format.Snappy {
			if err := checkSnappy(r, body, &h); err != nil {
				return fmt.Errorf("%w: Snappy page at byte %d: %v", ErrDamaged, off, err)
			}
		}
		if codec == format.Lz4Raw {
			if err := checkLZ4(r, body, &h); err != nil {
				return fmt.Errorf("%w: LZ4 page at byte %d: %v", ErrDamaged, off, err)
			}
		}
		off = next
	}
	return nil
}

// pageValues is the number of values page header h claims.
func pageValues(h *format.PageHeader) int64 {
	switch {
	case h.DataPageHeader.Valid:
		return int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		return max(int64(h.DataPageHeaderV2.V.NumValues), int64(h.DataPageHeaderV2.V.NumRows))
	case h.DictionaryPageHeader.Valid:
		return int64(h.DictionaryPageHeader.V.NumValues)
	}
	return 0
}

// checkLZ4 decompresses the LZ4 page whose body starts at off.
func checkLZ4(r io.ReaderAt, off int64, h *format.PageHeader) error {
	src := make([]byte, h.CompressedPageSize)
	if _, err := r.ReadAt(src, off); err != nil {
		return err
	}
	// A data page v2 keeps its levels uncompressed before the body.
	if h.DataPageHeaderV2.Valid {
		v2 := h.DataPageHeaderV2.V
		lv := int(v2.RepetitionLevelsByteLength) + int(v2.DefinitionLevelsByteLength)
		if lv < 0 || lv > len(src) || (v2.IsCompressed.Valid && !v2.IsCompressed.V) {
			return nil
		}
		src = src[lv:]
		h2 := int(h.UncompressedPageSize) - lv
		if h2 < 0 {
			return fmt.Errorf("levels longer than the page")
		}
		_, err := lz4.UncompressBlock(src, make([]byte, h2))
		return err
	}
	_, err := lz4.UncompressBlock(src, make([]byte, h.UncompressedPageSize))
	return err
}

// checkSnappy refuses a Snappy page whose body claims to decompress to
// more bytes than its header says: the decoder allocates what the body's
// leading length claims, up to 4 GiB, before it finds the data short.
func checkSnappy(r io.ReaderAt, off int64, h *format.PageHeader) error {
	levels, size := int64(0), int64(h.UncompressedPageSize)
	if h.DataPageHeaderV2.Valid { // levels come first, uncompressed
		v2 := h.DataPageHeaderV2.V
		if v2.IsCompressed.Valid && !v2.IsCompressed.V {
			return nil
		}
		levels = int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		size -= levels
	}
	if levels < 0 || levels >= int64(h.CompressedPageSize) {
		return nil // nothing compressed; parquet-go reports bad lengths
	}
	var head [binary.MaxVarintLen32]byte
	n, _ := r.ReadAt(head[:min(int64(len(head)), int64(h.CompressedPageSize)-levels)], off+levels)
	claim, k := binary.Uvarint(head[:n])
	if k <= 0 {
		return fmt.Errorf("no length")
	}
	if claim > uint64(max(size, 0)) {
		return fmt.Errorf("claims %d bytes, the page %d", claim, size)
	}
	return nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
