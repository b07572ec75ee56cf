package exec

import (
	"container/list"
	"sync"

	"github.com/aplite/aplite/core/output"
)

// ResultCache keeps recent results of queries whose every scanned part is
// immutable (block files). The planner makes the key (core's cacheKey):
// a hash of the encoded plan, the ids of the parts of every dataset the
// query reads, the request's options and the caller's permitted
// datasets. New data lands in new parts, so a key can never name stale
// data. Queries that read the clock (now, ago), draw random numbers
// (rand, sample) or read the in-memory buffer are never cached.
//
// It is bounded in bytes (the columns an answer holds), so one query with
// a million groups cannot pin memory that a user did not give it.
type ResultCache struct {
	mu    sync.Mutex
	limit int64 // bytes
	used  int64
	lru   *list.List
	items map[string]*list.Element
}

type resultEntry struct {
	key   string
	r     *output.Output
	bytes int64
}

// NewResultCache returns an engine's result cache holding at most limit
// bytes of outputs.
func NewResultCache(limit int64) *ResultCache {
	return &ResultCache{limit: limit, lru: list.New(), items: map[string]*list.Element{}}
}

// outputBytes estimates the memory an answer holds: its columns and its
// totals.
func outputBytes(o *output.Output) int64 {
	n := int64(len(o.Datasets)+len(o.Messages)) * 64
	for _, t := range []*output.Table{&o.Table, o.Totals} {
		if t == nil {
			continue
		}
		for _, c := range t.Columns {
			n += c.Vec.Bytes() + 64
		}
	}
	return n
}

// Get returns the answer cached under key, or nil.
func (c *ResultCache) Get(key string) *output.Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*resultEntry).r
	}
	return nil
}

// Put keeps r under key, evicting the least recently used answers past
// the cache's bound.
func (c *ResultCache) Put(key string, r *output.Output) {
	c.mu.Lock()
	defer c.mu.Unlock()
	size := outputBytes(r)
	if _, ok := c.items[key]; ok || size > c.limit/4 {
		// An answer over a quarter of the cache would evict most of
		// what is there for one query's sake.
		return
	}
	c.items[key] = c.lru.PushFront(&resultEntry{key, r, size})
	c.used += size
	for c.used > c.limit {
		back := c.lru.Back()
		c.lru.Remove(back)
		e := back.Value.(*resultEntry)
		delete(c.items, e.key)
		c.used -= e.bytes
	}
}
