package exec

import (
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/vector"
)

// The result cache is bounded in bytes: answers are evicted oldest first
// once their columns pass the limit, and an answer too big to be worth
// caching is not kept at all.
func TestResultCacheBytes(t *testing.T) {
	answer := func(rows int) *output.Output {
		v := vector.New(vector.Int, rows)
		for i := range rows {
			v.AppendInt(int64(i))
		}
		return &output.Output{Table: output.Table{Rows: rows, Columns: []output.Column{{Name: "n", Type: vector.Int, Vec: v}}}}
	}
	size := outputBytes(answer(1000))
	c := NewResultCache(size * 5)
	for i := range 8 {
		c.Put(fmt.Sprint(i), answer(1000))
	}
	if c.used > c.limit {
		t.Errorf("%d bytes held, limit %d", c.used, c.limit)
	}
	if c.Get("0") != nil || c.Get("7") == nil {
		t.Error("want the oldest evicted and the newest kept")
	}
	c.Put("big", answer(100000))
	if c.Get("big") != nil {
		t.Error("an answer larger than a quarter of the cache was kept")
	}
	off := NewResultCache(0)
	off.Put("x", answer(1))
	if off.Get("x") != nil {
		t.Error("a cache of 0 bytes kept an answer")
	}
}
