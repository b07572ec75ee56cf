package store

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// EncodeColumns appends n rows of cols to b in the layout of the WAL's
// rows batch columns (FORMAT.md), without names or times: how a query
// node sends the rows and group keys of a partial result to the node
// that merges them.
func EncodeColumns(b []byte, cols []*vector.Vector, n int) ([]byte, error) {
	b = putUvarint(b, uint64(n))
	b = putUvarint(b, uint64(len(cols)))
	var err error
	for i, c := range cols {
		b = append(b, byte(c.Type))
		if b, err = encodeRowsCol(b, c, n); err != nil {
			return b, fmt.Errorf("column %d: %w", i, err)
		}
	}
	return b, nil
}

// maxPartialRows bounds the rows DecodeColumns accepts, so damaged input
// cannot make it allocate without limit.
const maxPartialRows = 1 << 28

// DecodeColumns reads what EncodeColumns wrote and returns the columns,
// their row count and the bytes after them. Damage is an error naming
// the offset, never a panic.
func DecodeColumns(b []byte) (cols []*vector.Vector, n int, rest []byte, err error) {
	rd := newReader("partial result", 0, b)
	n = rd.count(0, "row")
	if n > maxPartialRows {
		rd.fail("row count out of range")
	}
	ncols := rd.count(1, "column")
	for c := 0; c < ncols && rd.err == nil; c++ {
		t := vector.Type(rd.u8())
		if t > vector.Dynamic {
			rd.fail("unknown column type")
			break
		}
		cols = append(cols, decodeRowsCol(rd, t, n))
	}
	if rd.err != nil {
		return nil, 0, nil, rd.err
	}
	return cols, n, b[len(b)-rd.remaining():], nil
}

// PartKey is the name of a block part every node agrees on (its object
// key in the bucket), or "" for parts only this process has: buffered
// batches and blocks in local files.
func PartKey(p Part) string {
	if bp, ok := p.(*blockPart); ok && bp.src != nil {
		return bp.file
	}
	return ""
}
