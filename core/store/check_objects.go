//go:build !js

package store

import (
	"context"
	"errors"
	"fmt"
)

// CheckObjects verifies a bucket as Check verifies a data directory:
// every dataset's catalog builds (OBJECTS.md, rule 2), and every block
// its newest version names exists, has the size the catalog says, is
// described by the catalog's copy of its index, and passes every checksum
// (framing, index, each column). It changes nothing, and reads each live
// block whole, so give it the bucket itself rather than a cache over it.
func CheckObjects(ctx context.Context, objs ObjectStore, progress CheckProgress) ([]Problem, error) {
	slots, err := listSlots(ctx, objs)
	if err != nil {
		return nil, fmt.Errorf("listing the writers' slots in the bucket: %w", err)
	}
	type item struct {
		ds     string
		objs   ObjectStore // the slot's view
		prefix string      // the slot's
		b      catalogBlock
	}
	var items []item
	var out []Problem
	for _, slot := range slots { // every writer's slot (OBJECTS.md, "Many writers")
		sobjs, prefix := slotObjects(objs, slot), slotPrefix(slot)
		names, err := bucketDatasets(ctx, sobjs)
		if err != nil {
			return nil, fmt.Errorf("listing datasets in the bucket: %w", err)
		}
		for _, ds := range names {
			cat, err := loadCatalog(ctx, sobjs, ds, nil)
			var ce *CorruptionError
			switch {
			case errors.As(err, &ce):
				out = append(out, Problem{Dataset: ds, File: prefix + ce.File, Reason: ce.Reason})
				continue
			case err != nil:
				return out, fmt.Errorf("dataset %s: %w", ds, err)
			case cat == nil:
				continue
			}
			for _, b := range cat.Blocks {
				items = append(items, item{ds, sobjs, prefix, b})
			}
		}
	}
	for i, it := range items {
		if progress != nil {
			progress(i+1, len(items), it.prefix+it.b.Key)
		}
		if reason := checkObject(ctx, it.objs, it.b); reason != "" {
			out = append(out, Problem{Dataset: it.ds, File: it.prefix + it.b.Key, Reason: reason})
		}
	}
	return out, ctx.Err()
}

// checkObject says what is wrong with the block a catalog entry names,
// or "" when nothing is.
func checkObject(ctx context.Context, objs ObjectStore, b catalogBlock) string {
	data, err := objs.Get(ctx, b.Key)
	switch {
	case errors.Is(err, ErrObjectNotFound):
		return "named by the catalog but not in the bucket"
	case err != nil:
		return err.Error()
	case int64(len(data)) != b.Size:
		return fmt.Sprintf("%d bytes, the catalog says %d", len(data), b.Size)
	}
	p, err := newBlockPart(b.ID, b.Key, data, nil)
	if err != nil {
		return corruptionReason(err)
	}
	lean, err := parseCatalogIndex(b)
	if err != nil {
		return "the catalog's index: " + corruptionReason(err)
	}
	if len(lean.cols) != len(p.idx.cols) {
		return "the catalog's index lists other columns than the block's"
	}
	for i, c := range p.idx.cols {
		if l := lean.cols[i]; l.key != c.key || l.off != c.off || l.size != c.size || l.crc != c.crc {
			return fmt.Sprintf("the catalog's index differs from the block's at column %q", c.key.Name)
		}
	}
	for _, m := range p.Columns() {
		if _, err := p.ReadColumn(m.Key); err != nil {
			return corruptionReason(err)
		}
	}
	return ""
}

// corruptionReason is err as Check reports it: the offset and the reason
// of a CorruptionError.
func corruptionReason(err error) string {
	var ce *CorruptionError
	if errors.As(err, &ce) {
		return fmt.Sprintf("at offset %d: %s", ce.Offset, ce.Reason)
	}
	return err.Error()
}
