package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
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
	// sorted is parts as load last returned them, by id and key.
	sorted []*blockPart
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
	added, lost := u.changes(cats)
	fresh, err := remoteParts(root, added, logf)
	if err != nil {
		return nil, nil, false, err
	}
	if u.parts == nil {
		u.parts = make(map[string]*blockPart, len(fresh))
	}
	left := make(map[*blockPart]bool, len(lost))
	for _, k := range lost {
		if p, ok := u.parts[k]; ok {
			gone = append(gone, p)
			left[p] = true
			delete(u.parts, k)
		}
	}
	for i, p := range fresh {
		u.parts[added[i].Key] = p
	}
	parts = make([]*blockPart, 0, len(u.parts))
	for _, p := range u.sorted {
		if !left[p] {
			parts = append(parts, p)
		}
	}
	if parts = append(parts, fresh...); len(fresh) > 0 {
		slices.SortFunc(parts, func(a, b *blockPart) int {
			return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.file, b.file))
		})
	}
	u.cats, u.sorted = cats, parts
	return parts, gone, true, nil
}

// remoteParts makes the parts of blocks, a share per core when there
// are many (a query node's start: every block's index is parsed).
func remoteParts(root ObjectStore, blocks []catalogBlock, logf func(string, ...any)) ([]*blockPart, error) {
	parts := make([]*blockPart, len(blocks))
	workers := min(runtime.GOMAXPROCS(0), len(blocks)/1024+1)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(blocks) && errs[w] == nil; i += workers {
				parts[i], errs[w] = remotePart(root, blocks[i], logf)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, p := range parts {
			if p != nil {
				p.unref()
			}
		}
		return nil, err
	}
	return parts, nil
}

// changes is what the slots' live blocks gained (keys made full) and the
// full keys of those they lost between the versions the union holds and
// cats: a refresh after a flush costs a walk of each changed slot's
// blocks, not a part or a map entry made again per block.
func (u *slotUnion) changes(cats map[string]*catalog) (added []catalogBlock, lost []string) {
	slots := make(map[string]bool, len(cats)+len(u.cats))
	for s := range cats {
		slots[s] = true
	}
	for s := range u.cats {
		slots[s] = true
	}
	for slot := range slots {
		old, cur := u.cats[slot], cats[slot]
		if old == cur {
			continue
		}
		var was, is []catalogBlock
		if old != nil {
			was = old.Blocks
		}
		if cur != nil {
			is = cur.Blocks
		}
		add, drop := diffBlocks(was, is)
		prefix := slotPrefix(slot)
		for _, b := range add {
			b.Key = prefix + b.Key
			added = append(added, b)
		}
		for _, b := range drop {
			lost = append(lost, prefix+b.Key)
		}
	}
	return added, lost
}

// trimBefore is the largest trim bound among the union's slots.
func (u *slotUnion) trimBefore() int64 {
	var t int64
	for _, c := range u.cats {
		t = max(t, c.TrimBefore)
	}
	return t
}
