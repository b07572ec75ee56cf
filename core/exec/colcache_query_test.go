package exec

import (
	"fmt"
	"testing"
)

// A query that reads more columns than the cache holds keeps the part
// that fits from one run to the next: its second and third runs find the
// first ten of fourteen columns cached, where an LRU evicts each column
// just before the run reads it again and finds none. Bytes never pass
// the limit.
func TestColCacheKeepsPartOfAnOversizeSweep(t *testing.T) {
	size := intColumn(1000).Bytes()
	c := NewColCache(size * 10)
	for run := range 3 {
		q := c.ForQuery()
		hits := 0
		for i := range 14 {
			k := colKey(fmt.Sprint("col", i))
			if q.Get(k) != nil {
				hits++
				continue
			}
			q.Put(k, intColumn(1000))
			if c.used > c.limit {
				t.Fatalf("run %d: %d bytes held, limit %d", run, c.used, c.limit)
			}
		}
		if run > 0 && hits != 10 {
			t.Errorf("run %d: %d of 14 columns cached, want the 10 that fit", run, hits)
		}
	}
}

// Another query's columns still take the place of an earlier query's:
// only a query's own columns are kept from itself.
func TestColCacheNewQueryEvictsOldOnes(t *testing.T) {
	size := intColumn(1000).Bytes()
	c := NewColCache(size * 10)
	old := c.ForQuery()
	for i := range 10 {
		old.Put(colKey(fmt.Sprint("old", i)), intColumn(1000))
	}
	q := c.ForQuery()
	for i := range 10 {
		q.Put(colKey(fmt.Sprint("new", i)), intColumn(1000))
	}
	for i := range 10 {
		if q.Get(colKey(fmt.Sprint("new", i))) == nil {
			t.Errorf("new%d is not cached", i)
		}
	}
	if c.used > c.limit {
		t.Errorf("%d bytes held, limit %d", c.used, c.limit)
	}
}
