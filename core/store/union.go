package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// slotUnion is what a node reads of one dataset in the slots of other
// writers (OBJECTS.md, "Many writers", Readers): each slot's newest
// catalog version of the dataset's generation, and a part per live
// block, named by its full key.
type slotUnion struct {
	mu    sync.Mutex            // held by a load and the apply of its result
	cats  map[string]*catalog   // by slot
	parts map[string]*blockPart // by full key
	// tails holds the slots' tail records (read-only DBs; tail.go).
	tails map[string]*slotTail
}

// load reads the newest version of every slot but skip whose dataset is
// e's generation. It returns the union's parts, sorted, and the parts
// that left it (the caller unrefs them once no new snapshot can take
// them); changed is false when no slot's version changed.
func (u *slotUnion) load(ctx context.Context, root ObjectStore, slots []string, skip string, e regEntry, logf func(string, ...any)) (parts []*blockPart, gone []*blockPart, changed bool, err error) {
	cats := make(map[string]*catalog, len(slots))
	for _, slot := range slots {
		if slot == skip {
			continue
		}
		cat, err := loadCatalog(ctx, slotObjects(root, slot), e.Dataset, u.cats[slot])
		if err != nil {
			return nil, nil, false, fmt.Errorf("store: dataset %s, slot %s: %w", e.Dataset, slot, err)
		}
		if cat == nil || !cat.Created.Equal(e.Created) { // none, or a deleted generation's leftover
			continue
		}
		cats[slot] = cat
		if u.cats[slot] != cat {
			changed = true
		}
	}
	if len(cats) != len(u.cats) {
		changed = true
	}
	if !changed {
		return nil, nil, false, nil
	}
	next := make(map[string]*blockPart, len(u.parts))
	for slot, cat := range cats {
		prefix := slotPrefix(slot)
		for _, b := range cat.Blocks {
			b.Key = prefix + b.Key
			if p, ok := u.parts[b.Key]; ok {
				next[b.Key] = p
				continue
			}
			p, err := remotePart(root, b, logf)
			if err != nil {
				for k, p := range next {
					if u.parts[k] != p {
						p.unref()
					}
				}
				return nil, nil, false, err
			}
			next[b.Key] = p
		}
	}
	for k, p := range u.parts {
		if next[k] != p {
			gone = append(gone, p)
		}
	}
	u.cats, u.parts = cats, next
	for _, p := range next {
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b *blockPart) int {
		return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.file, b.file))
	})
	return parts, gone, true, nil
}

// trimBefore is the largest trim bound among the union's slots.
func (u *slotUnion) trimBefore() int64 {
	var t int64
	for _, c := range u.cats {
		t = max(t, c.TrimBefore)
	}
	return t
}
