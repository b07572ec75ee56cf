package store

import (
	"cmp"
	"slices"
)

// variant is one candidate blob of a column, framed raw (compression
// byte, null section, encoded values); zstd says whether compressing it
// may pay (bit-packed data at odd widths rarely compresses, so only its
// byte-aligned twin is tried).
type variant struct {
	body []byte
	zstd bool
}

// Candidate framings of a variant.
const (
	candRaw = iota
	candZstd
	candHuff
)

// candidate is a variant framed raw or with a compressor, with its exact
// size when built, else its size estimated from a sample.
type candidate struct {
	variant int
	comp    int
	size    int
	blob    []byte // nil while only estimated
}

// Close calls: an estimate within closeMargin percent of the smallest
// size known is not trusted to rank, so up to maxFullTries
// estimated candidates are compressed in full before choosing. Sample
// estimates of large bodies are off by up to about a third (zstd finds
// matches across the whole body that a sample lacks), which decided
// between zstd and Huffman, or against compressing at all, by noise.
const (
	closeMargin  = 115
	maxFullTries = 2
)

// chooseBlob returns the smallest framing of the variants, raw or
// compressed, and which variant it holds. Compression is kept only when
// it saves at least 10%. Small bodies are compressed outright; large ones
// are judged by compressing a sample, and only the candidates that the
// sample cannot tell apart from the best are compressed in full.
func chooseBlob(variants []variant) ([]byte, int) {
	bestRaw := 0
	var cands []candidate
	for i, v := range variants {
		if len(v.body) < len(variants[bestRaw].body) {
			bestRaw = i
		}
		if v.zstd && len(v.body) >= zstdMinLen {
			cands = append(cands, compressCandidates(i, v.body)...)
		}
	}
	rawBest := variants[bestRaw].body
	settleClose(cands, variants, len(rawBest))
	best := candidate{variant: -1}
	for _, c := range cands {
		if c.size < len(variants[c.variant].body)*9/10 && (best.variant < 0 || c.size < best.size) {
			best = c
		}
	}
	if best.variant < 0 || best.size >= len(rawBest) {
		return rawBest, bestRaw
	}
	if best.blob == nil {
		best.blob = compressBody(best.comp, variants[best.variant].body)
	}
	if len(best.blob) < len(rawBest) && len(best.blob) < len(variants[best.variant].body)*9/10 {
		return best.blob, best.variant
	}
	return rawBest, bestRaw
}

// settleClose compresses in full the estimated candidates whose estimate
// is close to the smallest size known (a candidate's, or the best raw
// variant's less the 10% compression must save), so that the choice
// among them rests on real sizes.
func settleClose(cands []candidate, variants []variant, rawLen int) {
	lead := rawLen * 9 / 10
	for _, c := range cands {
		lead = min(lead, c.size)
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(cands[a].size, cands[b].size) })
	tries := 0
	for _, i := range order {
		c := &cands[i]
		if c.blob != nil {
			continue
		}
		if tries == maxFullTries || c.size*100 > lead*closeMargin {
			break
		}
		c.blob = compressBody(c.comp, variants[c.variant].body)
		c.size = len(c.blob)
		tries++
	}
}

// Sampling: bodies up to fullTryLen are compressed outright by both
// compressors; longer ones are judged by samplePieces contiguous pieces
// spread over the body, each a 64th of it within [minPiece, maxPiece].
// Pieces grow with the body because zstd's gain on large bodies comes
// from matches far apart, which short pieces do not hold: 8 KiB pieces
// sized a 27 MB message column at 13.8 MB against a real 7.8 MB.
const (
	fullTryLen   = 64 << 10
	minPiece     = 8 << 10
	maxPiece     = 32 << 10
	samplePieces = 8
)

// compressCandidates returns the zstd and Huffman framings of a raw
// variant, built when it is small, else sized from a sample.
func compressCandidates(vi int, body []byte) []candidate {
	if len(body) <= fullTryLen {
		z, h := compressBody(candZstd, body), compressBody(candHuff, body)
		return []candidate{{vi, candZstd, len(z), z}, {vi, candHuff, len(h), h}}
	}
	sample := sampleOf(body[1:])
	scale := func(n int) int { return int(int64(n) * int64(len(body)-1) / int64(len(sample))) }
	z := zstdSampleSize(sample)
	h := len(huffCompress(nil, sample))
	return []candidate{{vi, candZstd, scale(z), nil}, {vi, candHuff, scale(h), nil}}
}

// sampleOf concatenates samplePieces pieces of raw, evenly spread from
// its start to its end.
func sampleOf(raw []byte) []byte {
	piece := min(max(len(raw)/64, minPiece), maxPiece)
	sample := make([]byte, 0, piece*samplePieces)
	stride := (len(raw) - piece) / (samplePieces - 1)
	for i := 0; i < samplePieces; i++ {
		sample = append(sample, raw[i*stride:i*stride+piece]...)
	}
	return sample
}

// compressBody frames a raw variant (its bytes after the compression
// byte) with zstd or Huffman.
func compressBody(comp int, body []byte) []byte {
	raw := body[1:]
	if comp == candZstd {
		dst := putUvarint(make([]byte, 1, 16+len(raw)/2), uint64(len(raw)))
		dst[0] = compZstd
		return zstdCompress(dst, raw)
	}
	return huffCompress(putUvarint([]byte{compHuff}, uint64(len(raw))), raw)
}
