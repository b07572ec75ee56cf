package core

import (
	"container/list"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/core/output"
)

// resultCache keeps recent results of queries whose every scanned part is
// immutable (block files), keyed by the query, its range and variables and
// the ids of those parts: new data lands in new parts, so a key can never
// name stale data. Queries that read the clock (now, ago, bin_auto) or the
// in-memory buffer are never cached.
//
// It is bounded in bytes (the columns an answer holds), so one query with
// a million groups cannot pin memory that a user did not give it.
type resultCache struct {
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

func newResultCache(limit int64) *resultCache {
	return &resultCache{limit: limit, lru: list.New(), items: map[string]*list.Element{}}
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

func (c *resultCache) get(key string) *output.Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*resultEntry).r
	}
	return nil
}

func (c *resultCache) put(key string, r *output.Output) {
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

// cacheKey returns the result-cache key of a planned query, or "" when it
// must not be cached.
func cacheKey(req *Request, pl *pipeline) string {
	lower := strings.ToLower(req.APL)
	for _, clock := range []string{"now(", "ago(", "bin_auto", "rand(", "ingestion_time", "cursor_current"} {
		if strings.Contains(lower, clock) {
			return ""
		}
	}
	var parts []string
	ok := true
	var walk func(s source)
	walk = func(s source) {
		switch s := s.(type) {
		case *scanSource:
			for _, p := range s.parts {
				if !p.part.Immutable() {
					ok = false
				}
				parts = append(parts, p.part.ID())
			}
		case *filteredSource:
			walk(s.src)
		case *unionSource, *tableSource:
			// Sub-pipelines may scan buffers we cannot see from here.
			if _, isTable := s.(*tableSource); !isTable || s.(*tableSource).eval != nil {
				ok = false
			}
		}
	}
	walk(pl.src)
	if !ok || len(parts) == 0 {
		return ""
	}
	vars, _ := json.Marshal(req.Variables)
	// Virtual fields change what a query computes over the same blocks:
	// a redefined field must not be answered from the old definition.
	vfields, _ := json.Marshal(req.VirtualFields)
	allowed := "all"
	if req.Allowed != nil {
		// Permission checks ran while planning; the key need not vary.
		allowed = "checked"
	}
	return strings.Join([]string{req.APL, req.Start.Format(time.RFC3339Nano), req.End.Format(time.RFC3339Nano),
		string(vars), string(vfields), allowed, itoa(req.DefaultLimit), strings.Join(parts, ",")}, "\x00")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
