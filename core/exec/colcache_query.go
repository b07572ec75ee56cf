package exec

import (
	"container/list"

	"github.com/aplite/aplite/vector"
)

// A query that reads more columns than the cache holds (a full-text
// search over ten million messages: 1.3 GB of text against 1 GB) would,
// under any LRU, evict each column shortly before its next run reads it
// again, and hit nothing: the probation segment is a FIFO that the sweep
// overruns. So a query does not evict what it has itself put or used:
// once it fills the cache, the rest of its columns are decoded and not
// kept, and its next run finds the same part of them cached (seven
// blocks of ten) instead of none. Columns of other queries are evicted
// as before, so a new workload still takes the cache over.

// cacheView is one query's handle on the column cache.
type cacheView struct {
	c *ColCache
	q uint64
}

// ForQuery returns the handle of a new query; nil for no cache.
func (c *ColCache) ForQuery() *cacheView {
	if c == nil {
		return nil
	}
	return &cacheView{c: c, q: c.queries.Add(1)}
}

// The handle's methods are those of the cache; a nil handle (a query
// without the cache) holds nothing.

func (v *cacheView) Get(k colCacheKey) *vector.Vector {
	if v == nil {
		return nil
	}
	return v.c.Get(k, v.q)
}

func (v *cacheView) peek(k colCacheKey) *vector.Vector {
	if v == nil {
		return nil
	}
	return v.c.peek(k)
}

func (v *cacheView) Put(k colCacheKey, x *vector.Vector) {
	if v != nil {
		v.c.Put(k, x, v.q)
	}
}

// evictsOwn reports whether making room for n more bytes would evict a
// column that query q (not 0) put or used, with the cache bound to limit.
// Eviction takes probation from its oldest end, then protected likewise
// (put). Called with c.mu held.
func (c *ColCache) evictsOwn(n int64, q uint64, limit int64) bool {
	need := c.used + n - limit
	if q == 0 || need <= 0 {
		return false
	}
	for _, l := range []*list.List{c.probation, c.protected} {
		for e := l.Back(); e != nil && need > 0; e = e.Prev() {
			ent := e.Value.(*ColCacheEntry)
			if ent.query == q {
				return true
			}
			need -= ent.n
		}
	}
	return false
}
