package store

import (
	"errors"
	"slices"

	"github.com/klauspost/compress/huff0"
)

// Huffman chunk modes (FORMAT.md, compression 2).
const (
	huffRaw  = 0
	huffCode = 1
	huffRLE  = 2
	// huffChunk stays under huff0.BlockSizeMax.
	huffChunk = 128 << 10
)

// huffCompress appends the chunked Huffman coding of src. Small-alphabet
// byte streams (dictionary codes, byte-aligned integers) then cost close
// to their entropy, which zstd misses when it spends bits on short
// matches between random symbols.
func huffCompress(dst, src []byte) []byte {
	// Every chunk carries its own table: a reused table would make chunks
	// depend on each other (and huff0 then omits it from the output).
	s := huff0.Scratch{Reuse: huff0.ReusePolicyNone}
	dst = slices.Grow(dst, len(src)/2+16)
	for off := 0; off < len(src); off += huffChunk {
		chunk := src[off:min(off+huffChunk, len(src))]
		out, _, err := huff0.Compress4X(chunk, &s)
		switch {
		case errors.Is(err, huff0.ErrUseRLE):
			dst = append(dst, huffRLE, chunk[0])
		case err != nil || len(out) >= len(chunk):
			dst = append(dst, huffRaw)
			dst = append(dst, chunk...)
		default:
			dst = append(dst, huffCode)
			dst = putUvarint(dst, uint64(len(out)))
			dst = append(dst, out...)
		}
	}
	return dst
}

// huffDecompress decodes chunks into exactly rawLen bytes.
func (r *reader) huffDecompress(rawLen int) []byte {
	out := make([]byte, 0, rawLen)
	var s huff0.Scratch
	for len(out) < rawLen && r.err == nil {
		n := min(huffChunk, rawLen-len(out))
		switch r.u8() {
		case huffRaw:
			out = append(out, r.take(n)...)
		case huffRLE:
			c := r.u8()
			for i := 0; i < n; i++ {
				out = append(out, c)
			}
		case huffCode:
			in := r.take(r.count(0, "huffman chunk"))
			if r.err != nil {
				return nil
			}
			s.MaxDecodedSize = huffChunk
			ts, rest, err := huff0.ReadTable(in, &s)
			if err != nil {
				r.fail("bad huffman table: " + err.Error())
				return nil
			}
			dec, err := ts.Decompress4X(rest, n)
			if err != nil || len(dec) != n {
				r.fail("huffman chunk does not decode to its length")
				return nil
			}
			out = append(out, dec...)
		default:
			r.fail("unknown huffman chunk mode")
		}
	}
	if r.err != nil {
		return nil
	}
	return out
}
