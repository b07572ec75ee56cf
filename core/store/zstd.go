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
	zstdFast *zstd.Encoder // sizes samples: the choice, not the bytes
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
		zstdFast, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic("store: zstd encoder: " + err.Error())
		}
		zstdDec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31))
		if err != nil {
			panic("store: zstd decoder: " + err.Error())
		}
	})
}

func zstdCompress(dst, src []byte) []byte {
	initZstd()
	return zstdEnc.EncodeAll(src, dst)
}

// zstdSampleSize estimates the default level's output size for src with
// the fastest level, which compresses a little worse: a conservative
// estimate at a third of the cost.
func zstdSampleSize(src []byte) int {
	initZstd()
	return len(zstdFast.EncodeAll(src, make([]byte, 0, len(src)/2)))
}

// zstdDecompress decodes src, which must expand to exactly rawLen bytes.
func zstdDecompress(src []byte, rawLen int) ([]byte, error) {
	initZstd()
	return zstdDec.DecodeAll(src, make([]byte, 0, rawLen))
}
