package parquet

import (
	"errors"
	"fmt"
)

// ErrDamaged is wrapped by the errors of a file whose footer or pages
// parquet-go cannot make sense of.
var ErrDamaged = errors.New("damaged Parquet file")

// Parquet files come from elsewhere (a file dropped on the console, one
// named with -in), and parquet-go panics on some malformed footers and
// pages instead of failing (FuzzRead found "cannot call Kind on parquet
// LIST type" from a flipped schema byte). The exported readers run their
// parquet-go calls through contain, so damage is an error the caller
// reports, never a crash of the browser's engine or the command.

// contain runs f, turning a panic into an error wrapping ErrDamaged.
func contain(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: %v", ErrDamaged, what, r)
		}
	}()
	return f()
}

// maxRowGroupRows bounds the rows a row group may claim: decoding sizes
// its columns by the claim, so a damaged count must not become an
// allocation that ends the process. Writers cut far smaller groups (ours
// RowGroupRows).
const maxRowGroupRows = 1 << 27
