package exec

import (
	"container/list"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// ColCache keeps decoded columns of immutable parts so repeated queries
// over hot blocks skip decoding: the dominant cost of a scan. It is bounded
// by the payload bytes it holds. Decoded vectors are immutable, so sharing
// them between concurrent queries is safe.
//
// It is a segmented LRU: a column enters on probation and is protected on
// its second use. A query that sweeps more columns than the cache holds
// (a full-text search over ten million messages) then cycles through the
// probation segment and cannot push out the small columns every other
// query reads; with one LRU it evicted all of them.
//
// (The issue suggests fastcache; it stores byte slices and copies on Get,
// which for an 8 MB int column costs more than the scan it saves. A map of
// shared vectors gives zero-copy hits; fastcache remains a fit for caching
// serialized results.)
type ColCache struct {
	Mu    sync.Mutex
	limit int64
	used  int64
	// probation holds columns seen once, protected those used again; the
	// protected segment holds at most protectedShare of the limit.
	probation, protected *list.List
	protectedBytes       int64
	Items                map[colCacheKey]*list.Element
	// queries numbers the queries that use the cache (forQuery), from 1.
	queries atomic.Uint64
	// room, when set, is what the cache may hold now, below limit: the
	// process's memory governor lends the cache what running queries do
	// not hold (colcache_room.go). held mirrors used for readers that
	// must not take Mu.
	room func() int64
	held atomic.Int64
}

// protectedShare is the part of the cache (in tenths) that columns used
// more than once may hold.
const protectedShare = 8

type colCacheKey struct {
	part string
	Col  store.ColKey
	// Converted marks a vector converted to the schema type or merged
	// from a field's per-type columns (convertedColumn), apart from a
	// stored column of the same type.
	Converted bool
	// page is 1 + the page of a paged column held alone (scan_pages.go);
	// 0 for a whole column.
	page int
}

// ColCacheEntry is one decoded column in the cache, with its LRU state.
type ColCacheEntry struct {
	key       colCacheKey
	V         *vector.Vector
	n         int64
	protected bool
	// query is the last query that put or used the column; 0 for none.
	query uint64
	// wide is the last wide copy of a packed V handed out
	// (colcache_pack.go), for as long as something else keeps it.
	wideMu sync.Mutex
	wide   weak.Pointer[vector.Vector]
}

// NewColCache returns an engine's column cache holding at most limit
// bytes (negative: none kept).
func NewColCache(limit int64) *ColCache {
	return &ColCache{limit: limit, probation: list.New(), protected: list.New(), Items: map[colCacheKey]*list.Element{}}
}

// Get returns the cached vector of k, counting a use by query q (0:
// none).
func (c *ColCache) Get(k colCacheKey, q uint64) *vector.Vector {
	if c == nil {
		return nil
	}
	if ent := c.use(k, q); ent != nil {
		return ent.widened()
	}
	return nil
}

// use finds the entry of k and counts a use of it by query q.
func (c *ColCache) use(k colCacheKey, q uint64) *ColCacheEntry {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	e, ok := c.Items[k]
	if !ok {
		return nil
	}
	ent := e.Value.(*ColCacheEntry)
	if q != 0 {
		ent.query = q
	}
	if ent.protected {
		c.protected.MoveToFront(e)
		return ent
	}
	// Second use: promote, demoting the protected segment's oldest to
	// probation while it is over its share.
	c.probation.Remove(e)
	ent.protected = true
	c.Items[k] = c.protected.PushFront(ent)
	c.protectedBytes += ent.n
	for c.protectedBytes > c.limit*protectedShare/10 && c.protected.Len() > 1 {
		back := c.protected.Back()
		old := back.Value.(*ColCacheEntry)
		c.protected.Remove(back)
		old.protected = false
		c.protectedBytes -= old.n
		c.Items[old.key] = c.probation.PushFront(old)
	}
	return ent
}

// peek returns the cached vector of k without counting a use: the paged
// scan asks whether a whole column is there before reading pages, and
// that question must not promote it. The vector is as the cache keeps it,
// possibly packed: read its rows through unpackRows.
func (c *ColCache) peek(k colCacheKey) *vector.Vector {
	if c == nil {
		return nil
	}
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if e, ok := c.Items[k]; ok {
		return e.Value.(*ColCacheEntry).V
	}
	return nil
}

// Put caches v under k for query q (0: none), unless making room would
// evict a column q itself put or used (evictsOwn). A column its byte side
// can rebuild is kept as the bytes alone (colcache_pack.go) and counted
// as such.
func (c *ColCache) Put(k colCacheKey, v *vector.Vector, q uint64) {
	if c == nil {
		return
	}
	ent := &ColCacheEntry{key: k, V: packColumn(v), query: q}
	if ent.V != v {
		ent.wide = weak.Make(v) // the copy the query that decoded it holds
	}
	n := ent.V.Bytes()
	ent.n = n
	limit := c.bound()
	if n > limit/4 {
		return
	}
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if _, ok := c.Items[k]; ok || c.evictsOwn(n, q, limit) {
		return
	}
	c.Items[k] = c.probation.PushFront(ent)
	c.used += n
	c.evictTo(limit)
}

// evictTo evicts the oldest columns, probation before protected, until
// the cache holds at most limit bytes. Called with Mu held.
func (c *ColCache) evictTo(limit int64) {
	for c.used > limit && c.probation.Len()+c.protected.Len() > 0 {
		l := c.probation
		if l.Len() == 0 {
			l = c.protected
		}
		back := l.Back()
		ent := back.Value.(*ColCacheEntry)
		l.Remove(back)
		delete(c.Items, ent.key)
		c.used -= ent.n
		if ent.protected {
			c.protectedBytes -= ent.n
		}
	}
	c.held.Store(c.used)
}

// dictSampleRows is how many leading values tell dictEncode that a column
// is free text: more than seven in eight of them distinct.
const dictSampleRows = 2048

// dictEncode turns a plain string column into a dictionary-encoded one
// when it repeats values, so group-by and string predicates over it run
// once per distinct value. It is applied once, when a column enters the
// cache; a column with mostly distinct values is returned unchanged.
//
// A column whose first dictSampleRows values are nearly all distinct
// (free text, ids) is given up on there: hashing half of a million-row
// block of messages before giving up cost a third of a full-text
// search's decode.
func dictEncode(v *vector.Vector) *vector.Vector {
	if v.Type != vector.String || v.Codes != nil || v.Const || v.Len < 1024 {
		return v
	}
	limit := v.Len / 2
	index := make(map[string]uint32, 1024)
	var dict []string
	for _, s := range v.Strs[:min(v.Len, dictSampleRows)] {
		if _, ok := index[s]; !ok {
			index[s] = uint32(len(dict))
			dict = append(dict, s)
		}
	}
	if v.Len > dictSampleRows && len(dict) > dictSampleRows*7/8 {
		return v
	}
	codes := make([]uint32, v.Len)
	for i, s := range v.Strs[:v.Len] {
		c, ok := index[s]
		if !ok {
			if len(dict) >= limit {
				return v
			}
			c = uint32(len(dict))
			index[s] = c
			dict = append(dict, s)
		}
		codes[i] = c
	}
	return &vector.Vector{Type: vector.String, Len: v.Len, Valid: v.Valid, Dict: dict, Codes: codes}
}
