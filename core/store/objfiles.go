//go:build !js

package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// objFiles is a dataset's storage when blocks live on object storage
// (OBJECTS.md): the WAL stays in the local directory (osFiles), blocks
// are uploaded and named by catalog versions.
type objFiles struct {
	*osFiles
	objs   ObjectStore // the slot's view of the bucket
	root   ObjectStore // the bucket: parts read blocks by their full keys
	prefix string      // the slot's prefix in the bucket
	name   string
	grace  time.Duration
	logf   func(string, ...any)

	mu        sync.Mutex // serialises commits (flusher and maintenance)
	cat       *catalog   // the newest version written
	lastSweep time.Time
	swept     map[string]bool // removed blocks deleted; the next commit forgets them
	// lease is the node's writer lease: no commit or deletion without it.
	lease *lease
}

// del deletes key if the lease still allows this node to write.
func (f *objFiles) del(ctx context.Context, key string) error {
	if err := f.lease.check(); err != nil {
		return err
	}
	return f.objs.Delete(ctx, key)
}

// writeBlock uploads the block, then commits a catalog version naming it
// (and dropping the blocks it replaces, so a compaction is one version).
func (f *objFiles) writeBlock(id uint64, data []byte) (*blockPart, error) {
	out, err := f.writeBlocks([]uint64{id}, [][]byte{data})
	if len(out) == 0 {
		return nil, err
	}
	return out[0], err
}

// uploadWidth bounds how many blocks of one flush upload at once.
const uploadWidth = 4

// writeBlocks is writeBlock for the heap blocks of one flush: it uploads
// them side by side and names them in one catalog version, so a flush
// costs one request's latency and one catalog write instead of one each
// per block. On failure the longest uploaded prefix is committed (blocks
// stay durable in id order); uploads past it are orphans the sweep
// removes, as after a crash between upload and commit.
func (f *objFiles) writeBlocks(ids []uint64, data [][]byte) ([]*blockPart, error) {
	if err := f.lease.check(); err != nil { // a fenced writer uploads nothing either
		return nil, fmt.Errorf("store: dataset %s: not uploading: %w", f.name, err)
	}
	keys := make([]string, len(ids))
	idxs := make([]*blockIndex, len(ids))
	for i, id := range ids {
		keys[i] = blockKey(f.name, id, nonce())
		idx, err := parseBlock(keys[i], data[i])
		if err != nil {
			return nil, err
		}
		idxs[i] = idx
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	sem := make(chan struct{}, uploadWidth)
	for i := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f.objs.Put(ctx, keys[i], data[i]); err != nil {
				errs[i] = fmt.Errorf("store: dataset %s: uploading block %016x: %w", f.name, ids[i], err)
			}
		}()
	}
	wg.Wait()
	n := 0
	for n < len(ids) && errs[n] == nil {
		n++
	}
	failed := errors.Join(errs...)
	if n == 0 {
		return nil, failed
	}
	entries := make([]catalogBlock, n)
	var replaced []uint64
	for i := range n {
		entries[i] = catalogEntry(keys[i], ids[i], data[i], idxs[i])
		replaced = append(replaced, idxs[i].replaced...)
	}
	if err := f.commit(ctx, func(c *catalog) {
		c.dropBlocks(replaced)
		c.Blocks = append(c.Blocks, entries...)
		slices.SortFunc(c.Blocks, func(a, b catalogBlock) int { return cmpInt(int64(a.ID), int64(b.ID)) })
		c.NextBlock = max(c.NextBlock, ids[n-1]+1)
	}); err != nil {
		return nil, err
	}
	out := make([]*blockPart, 0, n)
	for _, e := range entries {
		p, err := f.part(e)
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, failed
}

// removeBlock drops a block from the catalog (a trim that left nothing of
// it); the object goes after the grace period.
func (f *objFiles) removeBlock(id uint64) error {
	f.mu.Lock()
	live := slices.ContainsFunc(f.cat.Blocks, func(b catalogBlock) bool { return b.ID == id })
	f.mu.Unlock()
	if !live { // already dropped by the version that added its replacement
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return f.commit(ctx, func(c *catalog) { c.dropBlocks([]uint64{id}) })
}

// part makes the part of one of the slot's catalog entries, named by its
// full key so every node names it alike (fragments, caches).
func (f *objFiles) part(e catalogBlock) (*blockPart, error) {
	e.Key = f.prefix + e.Key
	return remotePart(f.root, e, f.logf)
}

// writeMeta raises the trim bound in the registry, which every slot's
// writer follows, then in this slot's catalog.
func (f *objFiles) writeMeta(m dsMeta) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := f.lease.check(); err != nil {
		return err
	}
	if err := raiseRegistryTrim(ctx, f.root, f.name, m.Created, m.TrimBefore); err != nil {
		return err
	}
	return f.commit(ctx, func(c *catalog) { c.TrimBefore = max(c.TrimBefore, m.TrimBefore) })
}

// destroy deletes the dataset's registry entry (so every node sees it
// gone, and every other slot's writer removes its copy), then this
// slot's copy.
func (f *objFiles) destroy() error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := f.lease.check(); err != nil {
		return err
	}
	e, err := getRegEntry(ctx, f.root, f.name)
	switch {
	case err == nil && e.Created.Equal(f.cat.Created):
		if err := f.root.Delete(ctx, registryKey(f.name)); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, ErrObjectNotFound):
		return err
	}
	return f.destroyCopy(ctx)
}

// destroyCopy deletes this slot's catalog first (so readers see it
// gone), then its blocks, then the local WAL directory.
func (f *objFiles) destroyCopy(ctx context.Context) error {
	for _, prefix := range []string{catalogPrefix(f.name), datasetPrefix(f.name)} {
		res, err := f.objs.List(ctx, prefix, "")
		if err != nil {
			return err
		}
		for _, o := range res.Objects {
			if err := f.del(ctx, o.Key); err != nil {
				return err
			}
		}
	}
	return f.osFiles.destroy()
}

// commit writes the next catalog version with mut applied.
func (f *objFiles) commit(ctx context.Context, mut func(*catalog)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.lease.check(); err != nil {
		return fmt.Errorf("store: dataset %s: not committing catalog version %d: %w", f.name, f.cat.Version+1, err)
	}
	n := f.cat.clone()
	n.Version++
	n.Lease = f.lease.token()
	mut(n)
	n.Removed = slices.DeleteFunc(n.Removed, func(g catalogGone) bool { return f.swept[g.Key] })
	if err := writeCatalog(ctx, f.objs, f.cat, n); err != nil {
		return err
	}
	f.cat = n
	clear(f.swept)
	if time.Since(f.lastSweep) >= f.grace/4 {
		f.lastSweep = time.Now()
		go f.sweep(n)
	}
	return nil
}

// dropBlocks moves the listed blocks from the live list to removed.
func (c *catalog) dropBlocks(ids []uint64) {
	if len(ids) == 0 {
		return
	}
	now := time.Now().UTC()
	c.Blocks = slices.DeleteFunc(c.Blocks, func(b catalogBlock) bool {
		if slices.Contains(ids, b.ID) {
			c.Removed = append(c.Removed, catalogGone{Key: b.Key, At: now})
			return true
		}
		return false
	})
}

// keepVersions is how many catalog versions the sweep always keeps.
const keepVersions = 8

// sweep deletes what no reader can need any more (OBJECTS.md, rules 5 and
// 6, "Manifests"): removed blocks and replaced manifests past the grace
// period, blocks and manifests no version names that are older than it
// (uploads a crash orphaned), and catalog versions before the newest
// checkpoint.
// The next commit drops swept entries from removed. Errors are logged:
// the next sweep tries again.
func (f *objFiles) sweep(c *catalog) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	cutoff := time.Now().Add(-f.grace)
	named := map[string]bool{}
	for _, b := range c.Blocks {
		named[b.Key] = true
	}
	var swept []string
	for _, g := range c.Removed {
		named[g.Key] = true
		if g.At.Before(cutoff) {
			if err := f.del(ctx, g.Key); err != nil {
				f.logf("store: dataset %s: sweep: %v", f.name, err)
				continue
			}
			swept = append(swept, g.Key)
		}
	}
	for _, r := range c.manifests {
		named[r.Key] = true
	}
	for _, prefix := range []string{blockPrefix(f.name), manifestPrefix(f.name)} {
		res, err := f.objs.List(ctx, prefix, "")
		if err != nil {
			continue
		}
		for _, o := range res.Objects {
			if !named[o.Key] && o.Modified.Before(cutoff) {
				if err := f.del(ctx, o.Key); err != nil {
					f.logf("store: dataset %s: sweep: %v", f.name, err)
				}
			}
		}
	}
	if vs, infos, err := catalogVersions(ctx, f.objs, f.name); err == nil {
		for i := 0; i+keepVersions < len(vs) && vs[i] < c.checkpoint; i++ { // a reader builds on the checkpoint
			if infos[i].Modified.Before(cutoff) {
				_ = f.del(ctx, infos[i].Key)
			}
		}
	}
	if len(swept) > 0 {
		f.mu.Lock()
		for _, k := range swept {
			f.swept[k] = true
		}
		f.mu.Unlock()
	}
}
