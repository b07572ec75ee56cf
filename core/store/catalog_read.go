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
		c, err := buildCatalog(ctx, objs, ds, vs, held, allManifests)
		if isNotFound(err) && attempt < 3 {
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

func isNotFound(err error) bool { return errors.Is(err, ErrObjectNotFound) }

// buildCatalog reads the newest of the listed versions vs and what it
// builds on: for a reader holding a version at most checkpointEvery
// behind, the versions after it (a root applied as a delta); else the
// newest checkpoint (of a root, the manifests want accepts) and the
// deltas after it.
func buildCatalog(ctx context.Context, objs ObjectStore, ds string, vs []uint64, held *catalog, want func(manifestRef) bool) (*catalog, error) {
	newest := vs[len(vs)-1]
	top, err := readCatalogDoc(ctx, objs, ds, newest)
	if err != nil {
		return nil, err
	}
	if base := held; warmBase(base, top, vs) {
		docs, err := readDeltas(ctx, objs, ds, vs, base.Version+1, top.Version)
		if err != nil {
			return nil, err
		}
		for _, doc := range append(docs, top) {
			if base, err = base.apply(doc); err != nil {
				return nil, err
			}
		}
		return base, nil
	}
	if top.Kind == kindFull {
		return checkpointCatalog(ctx, objs, top, want)
	}
	doc, err := readCatalogDoc(ctx, objs, ds, top.Checkpoint)
	if err != nil {
		return nil, err
	}
	if doc.Kind != kindFull {
		return nil, &CorruptionError{File: catalogKey(ds, newest), Reason: fmt.Sprintf("catalog: checkpoint %d is not a full version", top.Checkpoint)}
	}
	base, err := checkpointCatalog(ctx, objs, doc, want)
	if err != nil {
		return nil, err
	}
	docs, err := readDeltas(ctx, objs, ds, vs, base.Version+1, top.Version)
	if err != nil {
		return nil, err
	}
	for _, doc := range append(docs, top) {
		if base, err = base.apply(doc); err != nil {
			return nil, err
		}
	}
	return base, nil
}

// warmBase reports whether a reader holding base builds top by applying
// the versions after base (a root applied as a delta): at most
// checkpointEvery of them, every one listed. Else it builds from the
// newest checkpoint, as a cold reader does: a version older than that
// may have been swept (rule 6), which is no damage.
func warmBase(base *catalog, top *catalogDoc, vs []uint64) bool {
	if base == nil || base.Version >= top.Version || top.Version-base.Version > checkpointEvery || !base.Created.Equal(top.Created) {
		return false
	}
	for v := base.Version + 1; v < top.Version; v++ {
		if _, ok := slices.BinarySearch(vs, v); !ok {
			return false
		}
	}
	return true
}

// checkpointCatalog is the catalog a full version describes: its inline
// blocks (formats 1 and 2) or its manifests' (format 3).
func checkpointCatalog(ctx context.Context, objs ObjectStore, d *catalogDoc, want func(manifestRef) bool) (*catalog, error) {
	if d.Format >= 3 {
		return rootCatalog(ctx, objs, d, want)
	}
	return fullCatalog(d), nil
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

// getCatalogObject reads a version or manifest object, decompressed.
func getCatalogObject(ctx context.Context, objs ObjectStore, key string) ([]byte, error) {
	b, err := objs.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, zstdMagic) {
		if b, err = zstdDecompress(b, 4*len(b)); err != nil {
			return nil, &CorruptionError{File: key, Reason: "catalog: " + err.Error()}
		}
	}
	return b, nil
}

// readCatalogDoc reads and checks one version object.
func readCatalogDoc(ctx context.Context, objs ObjectStore, ds string, v uint64) (*catalogDoc, error) {
	key := catalogKey(ds, v)
	b, err := getCatalogObject(ctx, objs, key)
	if err != nil {
		return nil, err
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
	if d.Kind == kindFull && d.Previous == 0 && (len(d.Add) > 0 || len(d.Drop) > 0 || len(d.Swept) > 0) {
		return nil, bad("full version %d carries a delta", v)
	}
	if d.Kind == kindDelta && (len(d.Blocks) > 0 || len(d.Manifests) > 0 || d.Previous != 0) {
		return nil, bad("delta version %d lists blocks", v)
	}
	if d.Kind == kindFull && d.Format >= 3 {
		if err := checkRoot(&d, bad); err != nil {
			return nil, err
		}
	} else if d.Kind == kindFull && (len(d.Manifests) > 0 || d.Previous != 0) {
		return nil, bad("format %d version %d names manifests", d.Format, v)
	}
	return &d, nil
}

// checkRoot checks what a format 3 root says of its manifests.
func checkRoot(d *catalogDoc, bad func(string, ...any) error) error {
	switch {
	case len(d.Blocks) > 0:
		return bad("root %d lists blocks", d.Version)
	case d.PartitionWidth <= 0:
		return bad("root %d has partition width %d", d.Version, d.PartitionWidth)
	case d.Previous != 0 && d.Previous != d.Version-1:
		return bad("root %d describes its change from version %d", d.Version, d.Previous)
	}
	for i, r := range d.Manifests {
		if r.Key == "" || r.Blocks <= 0 || r.MinTime > r.MaxTime || i > 0 && r.Partition <= d.Manifests[i-1].Partition {
			return bad("root %d: manifest %d (partition %d) is out of order or empty", d.Version, i, r.Partition)
		}
	}
	return nil
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
	key := catalogKey(c.Dataset, d.Version)
	if d.Kind == kindFull && d.Format < 3 {
		return fullCatalog(d), nil
	}
	if d.Kind == kindFull && d.Previous != c.Version {
		return nil, &CorruptionError{File: key, Reason: fmt.Sprintf("catalog: root %d does not describe its change from version %d", d.Version, c.Version)}
	}
	if d.Version != c.Version+1 || !d.Created.Equal(c.Created) {
		return nil, &CorruptionError{File: key, Reason: fmt.Sprintf("catalog: delta version %d does not follow version %d", d.Version, c.Version)}
	}
	n := &catalog{Dataset: c.Dataset, Version: d.Version, Created: d.Created, TrimBefore: d.TrimBefore,
		NextBlock: d.NextBlock, checkpoint: d.Checkpoint, Lease: d.Lease, manifests: c.manifests, width: c.width}
	if d.Kind == kindFull { // a root: its change from c
		n.checkpoint, n.manifests, n.width = d.Version, d.Manifests, d.PartitionWidth
	}
	drop := make(map[uint64]bool, len(d.Drop))
	for _, id := range d.Drop {
		drop[id] = true
	}
	n.Blocks = make([]catalogBlock, 0, len(c.Blocks)+len(d.Add))
	for _, b := range c.Blocks {
		if !drop[b.ID] {
			n.Blocks = append(n.Blocks, b)
		}
	}
	kept, added := len(n.Blocks), map[uint64]bool{}
	byID := func(b catalogBlock, id uint64) int { return cmp.Compare(b.ID, id) }
	for _, b := range d.Add {
		if _, twice := slices.BinarySearchFunc(n.Blocks[:kept], b.ID, byID); twice || added[b.ID] {
			return nil, &CorruptionError{File: key, Reason: fmt.Sprintf("catalog: block %d added twice", b.ID)}
		}
		added[b.ID] = true
		n.Blocks = append(n.Blocks, b)
	}
	if len(d.Add) > 0 {
		slices.SortFunc(n.Blocks, func(a, b catalogBlock) int { return cmp.Compare(a.ID, b.ID) })
	}
	if d.Kind == kindFull { // a root's removed list is whole
		n.Removed = d.Removed
		return n, nil
	}
	for _, g := range append(slices.Clip(c.Removed), d.Removed...) {
		if !slices.Contains(d.Swept, g.Key) {
			n.Removed = append(n.Removed, g)
		}
	}
	return n, nil
}
