package exec

import (
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

func intColumn(n int) *vector.Vector {
	v := vector.New(vector.Int, n)
	for i := range n {
		v.AppendInt(int64(i))
	}
	return v
}

func colKey(part string) colCacheKey {
	return colCacheKey{part: part, Col: store.ColKey{Name: "c", Type: vector.Int}}
}

// A column used twice is protected: a sweep over many more columns than
// the cache holds, each used once, cycles through the probation segment
// and leaves it cached. Bytes never pass the limit.
func TestColCacheResistsSweeps(t *testing.T) {
	small := intColumn(1000)
	size := small.Bytes()
	c := NewColCache(size * 20)
	c.Put(colKey("hot"), small, 0)
	if c.Get(colKey("hot"), 0) == nil { // second use: protected
		t.Fatal("a column just put is missing")
	}
	for i := range 200 {
		c.Put(colKey(fmt.Sprint("sweep", i)), intColumn(1000), 0)
		if c.used > c.limit {
			t.Fatalf("%d bytes held, limit %d", c.used, c.limit)
		}
	}
	if c.Get(colKey("hot"), 0) == nil {
		t.Error("a sweep of once-used columns evicted a column used twice")
	}
	if c.Get(colKey("sweep0"), 0) != nil {
		t.Error("the oldest once-used column survived the sweep")
	}
	if c.Get(colKey("sweep199"), 0) == nil {
		t.Error("the newest column is missing")
	}
}

// The protected segment keeps to its share: promoting more than it holds
// demotes its oldest columns to probation, from where they can be evicted.
func TestColCacheProtectedShare(t *testing.T) {
	size := intColumn(1000).Bytes()
	c := NewColCache(size * 10)
	for i := range 10 {
		k := colKey(fmt.Sprint("p", i))
		c.Put(k, intColumn(1000), 0)
		c.Get(k, 0)
	}
	if c.protectedBytes > c.limit*protectedShare/10 {
		t.Errorf("protected holds %d bytes, over its share of %d", c.protectedBytes, c.limit*protectedShare/10)
	}
	if c.used > c.limit {
		t.Errorf("%d bytes held, limit %d", c.used, c.limit)
	}
}
