package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// writeCatalog writes n as version n.Version on top of prev (nil for a
// dataset's first version): a full version at every checkpoint, else a
// delta of what changed since prev. It fails if that version exists
// (another writer: OBJECTS.md, rule 3).
func writeCatalog(ctx context.Context, objs ObjectStore, prev, n *catalog) error {
	d := catalogDoc{Format: catalogFormat, Version: n.Version, Dataset: n.Dataset, Created: n.Created,
		TrimBefore: n.TrimBefore, NextBlock: n.NextBlock, Written: time.Now().UTC()}
	if prev == nil || n.Version%checkpointEvery == 0 || n.Version == 1 {
		d.Kind, d.Blocks, d.Removed = kindFull, n.Blocks, n.Removed
		n.checkpoint = n.Version
	} else {
		d.Kind, d.Checkpoint = kindDelta, prev.checkpoint
		d.Add, d.Drop, d.Removed, d.Swept = diffCatalogs(prev, n)
		n.checkpoint = prev.checkpoint
	}
	b, err := json.Marshal(&d)
	if err != nil {
		return err
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
	had := make(map[string]bool, len(prev.Blocks))
	for _, b := range prev.Blocks {
		had[b.Key] = true
	}
	has := make(map[string]bool, len(n.Blocks))
	for _, b := range n.Blocks {
		has[b.Key] = true
		if !had[b.Key] {
			add = append(add, b)
		}
	}
	for _, b := range prev.Blocks {
		if !has[b.Key] {
			drop = append(drop, b.ID)
		}
	}
	wasGone := make(map[string]bool, len(prev.Removed))
	for _, g := range prev.Removed {
		wasGone[g.Key] = true
	}
	isGone := make(map[string]bool, len(n.Removed))
	for _, g := range n.Removed {
		isGone[g.Key] = true
		if !wasGone[g.Key] {
			removed = append(removed, g)
		}
	}
	for _, g := range prev.Removed {
		if !isGone[g.Key] {
			swept = append(swept, g.Key)
		}
	}
	return add, drop, removed, swept
}
