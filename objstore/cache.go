package objstore

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/VictoriaMetrics/fastcache"
	"github.com/aplite/aplite/core/store"
)

// Cached reads immutable blocks through two layers before the bucket:
// byte ranges in memory (fastcache, made for many mid-sized values with
// no GC cost) and byte ranges on local disk (Disk). Only block objects
// (".blk", write-once under a unique name) are cached; catalogs and
// lists always go to the bucket, because a catalog key can come back
// after a dataset is deleted and created again.
type Cached struct {
	inner store.ObjectStore
	mem   *fastcache.Cache // nil: no memory layer
	disk  *Disk            // nil: no disk layer
	stats *Stats
}

// NewCached layers the caches over inner; memBytes <= 0 or a nil disk
// leaves that layer out. stats receives hit counts (may be the inner
// store's).
func NewCached(inner store.ObjectStore, memBytes int64, disk *Disk, stats *Stats) *Cached {
	c := &Cached{inner: inner, disk: disk, stats: stats}
	if c.stats == nil {
		c.stats = &Stats{}
	}
	if memBytes > 0 {
		c.mem = fastcache.New(int(memBytes))
	}
	return c
}

func cacheable(key string) bool { return strings.HasSuffix(key, ".blk") }

func memKey(key string, off, n int64) []byte {
	b := make([]byte, 0, len(key)+24)
	b = append(b, key...)
	b = append(b, 0)
	b = strconv.AppendInt(b, off, 10)
	b = append(b, ':')
	return strconv.AppendInt(b, n, 10)
}

// GetRange implements store.ObjectStore: memory, then disk, then one
// ranged GET whose answer fills both layers.
func (c *Cached) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if !cacheable(key) || n < 0 {
		return c.inner.GetRange(ctx, key, off, n)
	}
	mk := memKey(key, off, n)
	if c.mem != nil {
		if b := c.mem.GetBig(nil, mk); int64(len(b)) == n && n > 0 {
			c.stats.MemHits.Add(1)
			return b, nil
		}
	}
	if c.disk != nil {
		if b, ok := c.disk.Get(key, off, n); ok {
			c.stats.DiskHits.Add(1)
			c.memPut(mk, b)
			return b, nil
		}
	}
	b, err := c.inner.GetRange(ctx, key, off, n)
	if err != nil {
		return nil, err
	}
	c.memPut(mk, b)
	if c.disk != nil {
		c.disk.Put(key, off, b, false)
	}
	return b, nil
}

func (c *Cached) memPut(k, b []byte) {
	if c.mem != nil && len(b) > 0 {
		c.mem.SetBig(k, b)
	}
}

// Put implements store.ObjectStore; a block this node uploads enters the
// disk cache whole, so its own queries start warm.
func (c *Cached) Put(ctx context.Context, key string, data []byte) error {
	if err := c.inner.Put(ctx, key, data); err != nil {
		return err
	}
	if c.disk != nil && cacheable(key) {
		c.disk.Put(key, 0, data, true)
	}
	return nil
}

// PutIfAbsent implements store.ObjectStore.
func (c *Cached) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	return c.inner.PutIfAbsent(ctx, key, data)
}

// GetTag implements store.SwapStore when the inner store does; the
// lease it serves is never cached.
func (c *Cached) GetTag(ctx context.Context, key string) ([]byte, string, error) {
	sw, ok := c.inner.(store.SwapStore)
	if !ok {
		return nil, "", errNoSwap
	}
	return sw.GetTag(ctx, key)
}

// Swap implements store.SwapStore when the inner store does.
func (c *Cached) Swap(ctx context.Context, key string, data []byte, tag string) (string, error) {
	sw, ok := c.inner.(store.SwapStore)
	if !ok {
		return "", errNoSwap
	}
	return sw.Swap(ctx, key, data, tag)
}

var errNoSwap = errors.New("objstore: the store under the cache cannot write conditionally")

// Get implements store.ObjectStore.
func (c *Cached) Get(ctx context.Context, key string) ([]byte, error) {
	return c.inner.Get(ctx, key)
}

// Delete implements store.ObjectStore.
func (c *Cached) Delete(ctx context.Context, key string) error { return c.inner.Delete(ctx, key) }

// List implements store.ObjectStore.
func (c *Cached) List(ctx context.Context, prefix, delim string) (store.ListResult, error) {
	return c.inner.List(ctx, prefix, delim)
}
