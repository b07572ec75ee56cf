package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// loadCatalog builds the newest catalog version of ds (OBJECTS.md, rule
// 2); nil, nil when the dataset has none. held, when not nil, is a
// version the caller already has: it is returned as is when nothing
// changed, and only the deltas after it are read when it is recent
// enough. A version deleted between list and read (the sweep) makes it
// list again.
func loadCatalog(ctx context.Context, objs ObjectStore, ds string, held *catalog) (*catalog, error) {
	for attempt := 0; ; attempt++ {
		vs, infos, err := catalogVersions(ctx, objs, ds)
		if err != nil || len(vs) == 0 {
			return nil, err
		}
		top := infos[len(infos)-1]
		if held != nil && held.Version == vs[len(vs)-1] && sameObject(held.seen, top) {
			return held, nil
		}
		c, err := buildCatalog(ctx, objs, ds, vs, held)
		if errors.Is(err, ErrObjectNotFound) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, err
		}
		c.seen = top
		return c, nil
	}
}

func sameObject(a, b ObjectInfo) bool {
	return a.Key == b.Key && a.Size == b.Size && a.Modified.Equal(b.Modified)
}

// buildCatalog reads the newest of the listed versions vs and what it
// builds on: nothing for a full version, the deltas after held or after
// the checkpoint for a delta.
func buildCatalog(ctx context.Context, objs ObjectStore, ds string, vs []uint64, held *catalog) (*catalog, error) {
	newest := vs[len(vs)-1]
	top, err := readCatalogDoc(ctx, objs, ds, newest)
	if err != nil {
		return nil, err
	}
	if top.Kind == kindFull {
		return fullCatalog(top), nil
	}
	base := held
	if base == nil || base.Version < top.Checkpoint || base.Version >= top.Version || !base.Created.Equal(top.Created) {
		doc, err := readCatalogDoc(ctx, objs, ds, top.Checkpoint)
		if err != nil {
			return nil, err
		}
		if doc.Kind != kindFull {
			return nil, &CorruptionError{File: catalogKey(ds, newest), Reason: fmt.Sprintf("catalog: checkpoint %d is not a full version", top.Checkpoint)}
		}
		base = fullCatalog(doc)
	}
	docs, err := readDeltas(ctx, objs, ds, vs, base.Version+1, top.Version)
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		if base, err = base.apply(doc); err != nil {
			return nil, err
		}
	}
	return base.apply(top)
}

// deltaReads bounds how many versions a reader fetches at once: a cold
// reader needs up to checkpointEvery of them, each a round trip.
const deltaReads = 8

// readDeltas reads versions from..to-1, side by side, in order.
func readDeltas(ctx context.Context, objs ObjectStore, ds string, vs []uint64, from, to uint64) ([]*catalogDoc, error) {
	if to <= from {
		return nil, nil
	}
	docs := make([]*catalogDoc, to-from)
	errs := make([]error, len(docs))
	sem := make(chan struct{}, deltaReads)
	var wg sync.WaitGroup
	for i := range docs {
		v := from + uint64(i)
		if _, ok := slices.BinarySearch(vs, v); !ok {
			// The sweep never deletes a version after the newest
			// checkpoint (rule 6), so this is damage, not a race.
			return nil, &CorruptionError{File: catalogKey(ds, v), Reason: fmt.Sprintf("catalog: version %d is missing below version %d", v, to)}
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			docs[i], errs[i] = readCatalogDoc(ctx, objs, ds, v)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// zstdMagic opens a zstd frame: a version stored compressed.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// readCatalogDoc reads and checks one version object.
func readCatalogDoc(ctx context.Context, objs ObjectStore, ds string, v uint64) (*catalogDoc, error) {
	key := catalogKey(ds, v)
	b, err := objs.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, zstdMagic) {
		if b, err = zstdDecompress(b, 4*len(b)); err != nil {
			return nil, &CorruptionError{File: key, Reason: "catalog: " + err.Error()}
		}
	}
	var d catalogDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, &CorruptionError{File: key, Reason: "catalog: " + err.Error()}
	}
	bad := func(format string, args ...any) error {
		return &CorruptionError{File: key, Reason: "catalog: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case d.Format < 1 || d.Format > catalogFormat:
		return nil, bad("format %d, this aplite reads 1 to %d", d.Format, catalogFormat)
	case d.Version != v:
		return nil, bad("object of version %d holds version %d", v, d.Version)
	case d.Format == 1 && d.Kind == "":
		d.Kind = kindFull
	case d.Kind == kindDelta && (d.Checkpoint == 0 || d.Checkpoint >= v):
		return nil, bad("delta version %d names checkpoint %d", v, d.Checkpoint)
	case d.Kind != kindFull && d.Kind != kindDelta:
		return nil, bad("unknown kind %q", d.Kind)
	}
	if d.Kind == kindFull && (len(d.Add) > 0 || len(d.Drop) > 0 || len(d.Swept) > 0) {
		return nil, bad("full version %d carries a delta", v)
	}
	if d.Kind == kindDelta && len(d.Blocks) > 0 {
		return nil, bad("delta version %d lists blocks", v)
	}
	return &d, nil
}

// fullCatalog is the catalog a full version describes.
func fullCatalog(d *catalogDoc) *catalog {
	c := &catalog{Dataset: d.Dataset, Version: d.Version, Created: d.Created, TrimBefore: d.TrimBefore,
		NextBlock: d.NextBlock, Blocks: d.Blocks, Removed: d.Removed, checkpoint: d.Version, Lease: d.Lease}
	slices.SortFunc(c.Blocks, func(a, b catalogBlock) int { return cmp.Compare(a.ID, b.ID) })
	return c
}

// apply returns the version a delta (or a full version) makes of c,
// leaving c as it was. A delta that does not fit c is corruption naming
// its object.
func (c *catalog) apply(d *catalogDoc) (*catalog, error) {
	if d.Kind == kindFull {
		return fullCatalog(d), nil
	}
	key := catalogKey(c.Dataset, d.Version)
	if d.Version != c.Version+1 || !d.Created.Equal(c.Created) {
		return nil, &CorruptionError{File: key, Reason: fmt.Sprintf("catalog: delta version %d does not follow version %d", d.Version, c.Version)}
	}
	n := &catalog{Dataset: c.Dataset, Version: d.Version, Created: d.Created, TrimBefore: d.TrimBefore,
		NextBlock: d.NextBlock, checkpoint: d.Checkpoint, Lease: d.Lease}
	live := make(map[uint64]bool, len(c.Blocks))
	for _, b := range c.Blocks {
		if !slices.Contains(d.Drop, b.ID) {
			n.Blocks = append(n.Blocks, b)
			live[b.ID] = true
		}
	}
	for _, b := range d.Add {
		if live[b.ID] {
			return nil, &CorruptionError{File: key, Reason: fmt.Sprintf("catalog: block %d added twice", b.ID)}
		}
		live[b.ID] = true
		n.Blocks = append(n.Blocks, b)
	}
	slices.SortFunc(n.Blocks, func(a, b catalogBlock) int { return cmp.Compare(a.ID, b.ID) })
	for _, g := range append(slices.Clip(c.Removed), d.Removed...) {
		if !slices.Contains(d.Swept, g.Key) {
			n.Removed = append(n.Removed, g)
		}
	}
	return n, nil
}
