package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// compressCatalogAt is the JSON size from which a version is stored
// zstd-compressed (OBJECTS.md): a full version of real blocks' entries
// shrinks several-fold, a small delta would gain nothing.
const compressCatalogAt = 4 << 10

// writeCatalog writes n as version n.Version on top of prev (nil for a
// dataset's first version): a full version at every checkpoint (a root
// and the manifests of the partitions that changed, OBJECTS.md
// "Manifests"), else a delta of what changed since prev. It fails if
// that version exists (another writer: OBJECTS.md, rule 3).
func writeCatalog(ctx context.Context, objs ObjectStore, prev, n *catalog) error {
	d := catalogDoc{Format: writeFormat, Version: n.Version, Dataset: n.Dataset, Created: n.Created,
		TrimBefore: n.TrimBefore, NextBlock: n.NextBlock, Written: time.Now().UTC(), Lease: n.Lease}
	switch full := prev == nil || n.Version%checkpointEvery == 0 || n.Version == 1; {
	case full && writeFormat >= 3:
		if err := writeRoot(ctx, objs, prev, n, &d); err != nil {
			return err
		}
	case full:
		d.Kind, d.Blocks, d.Removed = kindFull, n.Blocks, n.Removed
		n.checkpoint, n.manifests, n.width = n.Version, nil, 0
	default:
		d.Kind, d.Checkpoint = kindDelta, prev.checkpoint
		d.Add, d.Drop, d.Removed, d.Swept = diffCatalogs(prev, n)
		n.checkpoint = prev.checkpoint
	}
	b, err := json.Marshal(&d)
	if err != nil {
		return err
	}
	if len(b) >= compressCatalogAt {
		b = zstdCompress(nil, b)
	}
	if err := objs.PutIfAbsent(ctx, catalogKey(n.Dataset, n.Version), b); err != nil {
		return fmt.Errorf("store: dataset %s: writing catalog version %d: %w", n.Dataset, n.Version, err)
	}
	return nil
}

// diffCatalogs is the delta from prev to n: blocks added (by key, so a
// block uploaded again under the same id counts), ids dropped, removed
// entries added and removed entries forgotten (swept).
func diffCatalogs(prev, n *catalog) (add []catalogBlock, drop []uint64, removed []catalogGone, swept []string) {
	add, left := diffBlocks(prev.Blocks, n.Blocks)
	for _, b := range left {
		drop = append(drop, b.ID)
	}
	removed, forgotten := diffByKey(prev.Removed, n.Removed, func(g catalogGone) string { return g.Key })
	for _, g := range forgotten {
		swept = append(swept, g.Key)
	}
	return add, drop, removed, swept
}

// diffBlocks is the blocks of next that old lacks and those of old that
// next lacks, by key. Both are sorted by id, as catalogs
// keep them, so one walk over the two does it: a commit costs no map of
// a million keys.
func diffBlocks(old, next []catalogBlock) (add, drop []catalogBlock) {
	byID := func(a, b catalogBlock) int { return cmp.Compare(a.ID, b.ID) }
	if !slices.IsSortedFunc(old, byID) || !slices.IsSortedFunc(next, byID) {
		return diffByKey(old, next, func(b catalogBlock) string { return b.Key })
	}
	i, j := 0, 0
	for i < len(old) || j < len(next) {
		switch {
		case j == len(next) || i < len(old) && old[i].ID < next[j].ID:
			drop = append(drop, old[i])
			i++
		case i == len(old) || next[j].ID < old[i].ID:
			add = append(add, next[j])
			j++
		default: // the same id: the same block unless uploaded again
			if old[i].Key != next[j].Key {
				drop, add = append(drop, old[i]), append(add, next[j])
			}
			i, j = i+1, j+1
		}
	}
	return add, drop
}

// diffByKey returns the elements of next whose key old lacks, and those of
// old whose key next lacks.
func diffByKey[T any](old, next []T, key func(T) string) (added, gone []T) {
	in := func(xs []T) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[key(x)] = true
		}
		return m
	}
	had, has := in(old), in(next)
	for _, x := range next {
		if !had[key(x)] {
			added = append(added, x)
		}
	}
	for _, x := range old {
		if !has[key(x)] {
			gone = append(gone, x)
		}
	}
	return added, gone
}
