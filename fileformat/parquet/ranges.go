package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// Ranges is an io.ReaderAt over the parts of a file a caller has read:
// the browser cannot hand Go a file to seek in, only the bytes of
// File.slice calls, so it reads the footer and then one row group's
// ChunkRanges at a time into a Ranges, and drops each row group when it is decoded.
// A read that falls outside the ranges held fails, rather than returning
// zeros a decoder would take for data.
type Ranges struct {
	parts []part // sorted by offset, not overlapping
}

type part struct {
	off int64
	b   []byte
}

// Add holds b as the bytes of the file at off, replacing any held range
// it overlaps.
func (r *Ranges) Add(off int64, b []byte) {
	end := off + int64(len(b))
	kept := r.parts[:0]
	for _, p := range r.parts {
		if p.off+int64(len(p.b)) <= off || p.off >= end {
			kept = append(kept, p)
		}
	}
	r.parts = append(kept, part{off, b})
	sort.Slice(r.parts, func(i, j int) bool { return r.parts[i].off < r.parts[j].off })
}

// Drop lets go of the range that starts at off.
func (r *Ranges) Drop(off int64) {
	for i, p := range r.parts {
		if p.off == off {
			r.parts = append(r.parts[:i], r.parts[i+1:]...)
			return
		}
	}
}

// ReadAt reads from the one held range that covers [off, off+len(b)).
func (r *Ranges) ReadAt(b []byte, off int64) (int, error) {
	for _, p := range r.parts {
		if off >= p.off && off+int64(len(b)) <= p.off+int64(len(p.b)) {
			return copy(b, p.b[off-p.off:]), nil
		}
	}
	return 0, fmt.Errorf("parquet: bytes %d to %d of the file were not read", off, off+int64(len(b)))
}

// TrailerSize is the bytes at the end of every Parquet file that say
// how long its footer is.
const TrailerSize = 8

// FooterSize reads the trailer (the file's last TrailerSize bytes) and
// returns how many bytes at the end of the file hold the footer and the
// trailer: the one slice a reader of byte ranges needs before Open.
func FooterSize(trailer []byte) (int64, error) {
	if len(trailer) != TrailerSize || string(trailer[4:]) != "PAR1" {
		return 0, errors.New("not a Parquet file: it does not end in PAR1")
	}
	return int64(binary.LittleEndian.Uint32(trailer[:4])) + TrailerSize, nil
}
