package agg

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

// A field sent as a number by some shippers and as a string by others is
// dynamic; histogram reads its values as toreal does ("7" is 7, true is
// 1), as sum and avg do, and skips what is not a number, instead of
// rejecting the query.
func TestHistogramDynamic(t *testing.T) {
	x := col(vector.Dynamic, int64(0), 2.5, "7", nil, 10.0, true)
	res := run(t, "histogram", 1, make([]uint32, 6), x, cnst(vector.Int, int64(2), 6))
	expect(t, "dynamic", res[0], []any{bin(0, 5, 3), bin(5, 10, 2)})
	res = run(t, "histogramif", 1, make([]uint32, 6), x, cnst(vector.Int, int64(2), 6), col(vector.Bool, true, true, true, true, false, true))
	expect(t, "histogramif", res[0], []any{bin(0, 3.5, 3), bin(3.5, 7, 1)})
}
