package store

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// One encoder and one decoder serve the whole process: both are safe for
// concurrent EncodeAll/DecodeAll and expensive to create.
var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdDec  *zstd.Decoder
)

func initZstd() {
	zstdOnce.Do(func() {
		var err error
		zstdEnc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic("store: zstd encoder: " + err.Error()) // only on invalid options
		}
		// Every compressed body is checked by the CRC-32C of its blob or
		// page before it is decoded (FORMAT.md), so the frame's own
		// xxhash is not verified again: it was 6% of decoding a page of
		// messages.
		zstdDec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31),
			zstd.IgnoreChecksum(true))
		if err != nil {
			panic("store: zstd decoder: " + err.Error())
		}
	})
}

func zstdCompress(dst, src []byte) []byte {
	initZstd()
	return zstdEnc.EncodeAll(src, dst)
}

// zstdSampleSize is the default level's output size for a sample. The
// fastest level cost a third as much but misjudged in both directions,
// by up to 2x on small-alphabet codes (it entropy-codes less) and 0.84x
// on random hex (it tries fewer matches that do not pay).
func zstdSampleSize(src []byte) int {
	initZstd()
	return len(zstdEnc.EncodeAll(src, make([]byte, 0, len(src)/2)))
}

// zstdDecompress decodes src, which must expand to exactly rawLen bytes.
func zstdDecompress(src []byte, rawLen int) ([]byte, error) {
	initZstd()
	return zstdDec.DecodeAll(src, make([]byte, 0, rawLen))
}
