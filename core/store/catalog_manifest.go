package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash"
	"hash/fnv"
	"slices"
	"sync"
	"time"
)

// Format 3 (OBJECTS.md, "Manifests"): a full version is a root naming
// one manifest per time partition, so a checkpoint rewrites only the
// partitions that changed since the last one and a reader can read only
// the partitions a time range meets.

// defaultPartitionWidth is the time partition of a writer's roots: an
// hour, so a query over the last hour reads at most two manifests.
const defaultPartitionWidth = int64(time.Hour)

// manifestRef is a root's entry for one partition's manifest.
type manifestRef struct {
	Partition int64  `json:"partition"`
	Key       string `json:"key"`
	Blocks    int    `json:"blocks"`
	Rows      int64  `json:"rows"`
	Bytes     int64  `json:"bytes"`
	MinTime   int64  `json:"minTime"`
	MaxTime   int64  `json:"maxTime"`
	// sum fingerprints the manifest's block keys (0: unknown, as after
	// a reader applied a root as a delta), so a checkpoint can tell an
	// unchanged partition without reading its manifest.
	sum uint64
}

// manifestDoc is a manifest object as stored.
type manifestDoc struct {
	Format    int            `json:"format"`
	Dataset   string         `json:"dataset"`
	Created   time.Time      `json:"created"`
	Partition int64          `json:"partition"`
	Version   uint64         `json:"version"`
	Blocks    []catalogBlock `json:"blocks"`
}

func manifestPrefix(ds string) string { return datasetPrefix(ds) + "manifests/" }

func manifestKey(ds string, v uint64, part int64) string {
	return fmt.Sprintf("%s%020d-%020d-%s.json", manifestPrefix(ds), v, part, nonce())
}

// partitionOf is the partition a block belongs to: the one its events
// end in, so a fresh block with a late event stays in the current one.
func partitionOf(b catalogBlock, width int64) int64 {
	p := b.MaxTime / width
	if b.MaxTime < 0 && b.MaxTime%width != 0 {
		p--
	}
	return p
}

// keySum fingerprints a partition's blocks by their keys, which a
// block's nonce makes unique for good.
func keySum(blocks []catalogBlock) uint64 {
	h := fnv.New64a()
	for _, b := range blocks {
		h.Write([]byte(b.Key))
		h.Write([]byte{0})
	}
	return h.Sum64() | 1 // never 0, which means unknown
}

// partitionRefs describes the live blocks' partitions in one pass, by
// partition, without copying an entry: a checkpoint of 10^6 blocks then
// copies only the entries of the manifests it writes.
func partitionRefs(blocks []catalogBlock, width int64) []manifestRef {
	type acc struct {
		ref manifestRef
		h   hash.Hash64
	}
	accs := map[int64]*acc{}
	for _, b := range blocks {
		p := partitionOf(b, width)
		a := accs[p]
		if a == nil {
			a = &acc{ref: manifestRef{Partition: p, MinTime: b.MinTime, MaxTime: b.MaxTime}, h: fnv.New64a()}
			accs[p] = a
		}
		a.ref.Blocks++
		a.ref.Rows += int64(b.Rows)
		a.ref.Bytes += b.Size
		a.ref.MinTime, a.ref.MaxTime = min(a.ref.MinTime, b.MinTime), max(a.ref.MaxTime, b.MaxTime)
		a.h.Write([]byte(b.Key))
		a.h.Write([]byte{0})
	}
	refs := make([]manifestRef, 0, len(accs))
	for _, a := range accs {
		a.ref.sum = a.h.Sum64() | 1 // as keySum
		refs = append(refs, a.ref)
	}
	slices.SortFunc(refs, func(a, b manifestRef) int { return cmp.Compare(a.Partition, b.Partition) })
	return refs
}

// meets reports whether events in [lo, hi) may lie in [min, max].
func meets(minT, maxT, lo, hi int64) bool { return minT < hi && maxT >= lo }

// writeRoot completes d as the format 3 root of checkpoint n: it writes
// a manifest for every partition whose blocks differ from those of the
// manifest prev's checkpoint named for it (side by side, before the
// root, under keys never used before) and carries the others over. The
// manifests it replaces join n.Removed, swept after the grace period
// like dropped blocks.
func writeRoot(ctx context.Context, objs ObjectStore, prev, n *catalog, d *catalogDoc) error {
	width := defaultPartitionWidth
	old := map[int64]manifestRef{}
	if prev != nil && prev.width == width {
		for _, r := range prev.manifests {
			old[r.Partition] = r
		}
	}
	refs := partitionRefs(n.Blocks, width)
	var write []int
	groups := map[int64][]catalogBlock{} // of the partitions written
	for i, r := range refs {
		if was, ok := old[r.Partition]; ok && was.sum == r.sum && was.Blocks == r.Blocks {
			refs[i] = was
			delete(old, r.Partition)
			continue
		}
		refs[i].Key = manifestKey(n.Dataset, n.Version, r.Partition)
		groups[r.Partition] = make([]catalogBlock, 0, r.Blocks)
		write = append(write, i)
	}
	for _, b := range n.Blocks { // by id, so each group is too
		if g, ok := groups[partitionOf(b, width)]; ok {
			groups[partitionOf(b, width)] = append(g, b) // within the capacity made above
		}
	}
	if err := putManifests(ctx, objs, n, refs, write, groups); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, r := range old { // replaced, or their partition emptied
		n.Removed = append(n.Removed, catalogGone{Key: r.Key, At: now})
	}
	slices.SortFunc(n.Removed, func(a, b catalogGone) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Key, b.Key)) })
	d.Kind, d.PartitionWidth, d.Manifests, d.Removed = kindFull, width, refs, n.Removed
	if prev != nil {
		d.Previous = prev.Version
		d.Add, d.Drop, _, d.Swept = diffCatalogs(prev, n)
	}
	n.checkpoint, n.manifests, n.width = n.Version, refs, width
	return nil
}

// manifestWrites bounds how many manifests a root uploads at once.
const manifestWrites = 4

// putManifests uploads the manifests of refs[write], at most
// manifestWrites at once.
func putManifests(ctx context.Context, objs ObjectStore, n *catalog, refs []manifestRef, write []int, groups map[int64][]catalogBlock) error {
	errs := make([]error, len(write))
	sem := make(chan struct{}, manifestWrites)
	var wg sync.WaitGroup
	for j, i := range write {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := refs[i]
			m := manifestDoc{Format: 3, Dataset: n.Dataset, Created: n.Created, Partition: r.Partition, Version: n.Version, Blocks: groups[r.Partition]}
			b, err := json.Marshal(&m)
			if err == nil {
				if len(b) >= compressCatalogAt {
					b = zstdCompress(nil, b)
				}
				err = objs.Put(ctx, r.Key, b)
			}
			if err != nil {
				errs[j] = fmt.Errorf("store: dataset %s: writing the manifest of partition %d: %w", n.Dataset, r.Partition, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rootCatalog is the catalog a format 3 root describes, its blocks read
// from the manifests want accepts (8 at a time); the others' blocks are
// left out, so a catalog built with a want that refuses any is partial
// and must never be written on.
func rootCatalog(ctx context.Context, objs ObjectStore, d *catalogDoc, want func(manifestRef) bool) (*catalog, error) {
	c := &catalog{Dataset: d.Dataset, Version: d.Version, Created: d.Created, TrimBefore: d.TrimBefore,
		NextBlock: d.NextBlock, Removed: d.Removed, checkpoint: d.Version, Lease: d.Lease,
		manifests: slices.Clone(d.Manifests), width: d.PartitionWidth}
	var read []int
	for i, r := range c.manifests {
		if want(r) {
			read = append(read, i)
		}
	}
	got := make([][]catalogBlock, len(read))
	errs := make([]error, len(read))
	sem := make(chan struct{}, deltaReads)
	var wg sync.WaitGroup
	for j, i := range read {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			got[j], errs[j] = readManifestObject(ctx, objs, d, c.manifests[i])
		}()
	}
	wg.Wait()
	ids := map[uint64]bool{}
	for j, i := range read {
		if errs[j] != nil {
			return nil, errs[j]
		}
		c.manifests[i].sum = keySum(got[j])
		for _, b := range got[j] {
			if ids[b.ID] {
				return nil, &CorruptionError{File: c.manifests[i].Key, Reason: fmt.Sprintf("catalog: block %d is in two manifests", b.ID)}
			}
			ids[b.ID] = true
		}
		c.Blocks = append(c.Blocks, got[j]...)
	}
	slices.SortFunc(c.Blocks, func(a, b catalogBlock) int { return cmp.Compare(a.ID, b.ID) })
	return c, nil
}

// readManifestObject reads one manifest and checks it against the root's ref.
func readManifestObject(ctx context.Context, objs ObjectStore, root *catalogDoc, r manifestRef) ([]catalogBlock, error) {
	b, err := getCatalogObject(ctx, objs, r.Key)
	if err != nil {
		return nil, err
	}
	var m manifestDoc
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &CorruptionError{File: r.Key, Reason: "manifest: " + err.Error()}
	}
	bad := func(format string, args ...any) error {
		return &CorruptionError{File: r.Key, Reason: "manifest: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case m.Format != 3:
		return nil, bad("format %d, want 3", m.Format)
	case m.Dataset != root.Dataset || !m.Created.Equal(root.Created):
		return nil, bad("of dataset %s created %s, not of version %d's", m.Dataset, m.Created.Format(time.RFC3339Nano), root.Version)
	case m.Partition != r.Partition || len(m.Blocks) != r.Blocks:
		return nil, bad("partition %d of %d blocks, version %d names partition %d of %d", m.Partition, len(m.Blocks), root.Version, r.Partition, r.Blocks)
	}
	for _, e := range m.Blocks {
		if partitionOf(e, root.PartitionWidth) != r.Partition || e.MinTime < r.MinTime || e.MaxTime > r.MaxTime {
			return nil, bad("block %d lies outside partition %d", e.ID, r.Partition)
		}
	}
	return m.Blocks, nil
}

// loadCatalogRange builds the newest catalog version of ds as far as
// the time range [lo, hi) needs (OBJECTS.md, "Manifests", Readers): only
// the manifests whose span meets the range are read, and the catalog
// holds only the blocks that meet it. It is partial: never commit on
// it. nil, nil when the dataset has none.
func loadCatalogRange(ctx context.Context, objs ObjectStore, ds string, lo, hi int64) (*catalog, error) {
	for attempt := 0; ; attempt++ {
		vs, _, err := catalogVersions(ctx, objs, ds)
		if err != nil || len(vs) == 0 {
			return nil, err
		}
		c, err := buildCatalog(ctx, objs, ds, vs, nil, func(r manifestRef) bool { return meets(r.MinTime, r.MaxTime, lo, hi) })
		if isNotFound(err) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, err
		}
		c.Blocks = slices.DeleteFunc(c.Blocks, func(b catalogBlock) bool { return !meets(b.MinTime, b.MaxTime, lo, hi) })
		return c, nil
	}
}

// allManifests is the want of a whole catalog.
func allManifests(manifestRef) bool { return true }
