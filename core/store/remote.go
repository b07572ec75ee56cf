package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/vector"
)

// OpenRemote opens a read-only view of the datasets an ingest node
// publishes in opts.Objects (OBJECTS.md, "Reading nodes"): no WAL, no
// local state. It reloads the catalogs every opts.Refresh until Close.
// Writes fail with ErrReadOnly.
func OpenRemote(opts Options) (*DB, error) {
	if opts.Objects == nil {
		return nil, fmt.Errorf("store: OpenRemote needs an object store")
	}
	opts = opts.withDefaults()
	db := &DB{opts: opts, sets: make(map[string]*Dataset), readOnly: true, stopRefresh: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := db.Refresh(ctx); err != nil {
		return nil, err
	}
	go db.refreshLoop()
	if opts.TailInterval > 0 {
		go db.every(opts.TailInterval, opTimeout, "reading the writers' tails", db.PollTails)
	}
	return db, nil
}

func (db *DB) refreshLoop() {
	db.everyRefresh(2*time.Minute, "refreshing catalogs", db.Refresh)
}

// everyRefresh runs step every Refresh, each run bounded by timeout,
// until Close; a failed run is logged as what and tried again next tick.
func (db *DB) everyRefresh(timeout time.Duration, what string, step func(context.Context) error) {
	db.every(db.opts.Refresh, timeout, what, step)
}

// every is everyRefresh at another interval.
func (db *DB) every(interval, timeout time.Duration, what string, step func(context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-db.stopRefresh:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		if err := step(ctx); err != nil {
			db.opts.Logf("store: %s: %v", what, err)
		}
		cancel()
	}
}

// Refresh reloads every dataset's newest catalog versions (read-only DBs):
// new datasets appear, deleted ones go, blocks follow compaction and trim.
// A dataset is the union of its blocks in every writer's slot (OBJECTS.md,
// "Many writers"). Parts of unchanged blocks are kept, so their cached
// columns stay valid.
func (db *DB) Refresh(ctx context.Context) error {
	reg, _, err := readRegistry(ctx, db.opts.Objects, &db.regCache)
	if err != nil {
		return fmt.Errorf("store: reading the dataset registry: %w", err)
	}
	slots, err := listSlots(ctx, db.opts.Objects)
	if err != nil {
		return fmt.Errorf("store: listing the writers' slots: %w", err)
	}
	db.mu.Lock()
	db.tailSlots = slots
	db.mu.Unlock()
	for name, e := range reg {
		db.mu.Lock()
		d, ok := db.sets[name]
		db.mu.Unlock()
		if ok && !d.created.Equal(e.Created) { // deleted and created again
			db.dropDataset(name)
			ok = false
		}
		if !ok {
			d = newDataset(db, name, e.Created, nil, &recovered{nextSeq: 1, nextBlock: 1})
			db.mu.Lock()
			if db.closed {
				db.mu.Unlock()
				d.shutdown(false)
				return ErrClosed
			}
			db.sets[name] = d
			db.mu.Unlock()
		}
		if err := d.applyUnion(ctx, slots, e); err != nil {
			return err
		}
	}
	db.mu.Lock()
	var gone []string
	for name := range db.sets {
		if _, ok := reg[name]; !ok {
			gone = append(gone, name)
		}
	}
	db.mu.Unlock()
	for _, name := range gone {
		db.dropDataset(name)
	}
	return nil
}

func (db *DB) dropDataset(name string) {
	db.mu.Lock()
	d, ok := db.sets[name]
	delete(db.sets, name)
	db.mu.Unlock()
	if ok {
		d.shutdown(false)
	}
}

// applyUnion makes the union of every slot's newest version of the
// dataset its blocks (read-only DBs).
func (d *Dataset) applyUnion(ctx context.Context, slots []string, e regEntry) error {
	d.union.mu.Lock()
	defer d.union.mu.Unlock()
	_, err := d.applyUnionLocked(ctx, slots, e)
	return err
}

// applyUnionLocked is applyUnion with d.union.mu held; changed says
// whether a slot's catalog changed.
func (d *Dataset) applyUnionLocked(ctx context.Context, slots []string, e regEntry) (changed bool, err error) {
	parts, gone, changed, err := d.union.load(ctx, d.db.opts.Objects, slots, "", e, d.db.opts.Logf)
	if err != nil || !changed {
		return false, err
	}
	d.installLocked(parts, gone, max(e.TrimBefore, d.union.trimBefore()), true)
	return true, nil
}

// installLocked makes parts the dataset's blocks (when changed) and the
// tail records above their watermarks its tail, in one step under d.mu:
// a snapshot sees a record in its block or in the tail, never in both
// (OBJECTS.md, "Tails"). d.union.mu is held.
func (d *Dataset) installLocked(parts, gone []*blockPart, trimBefore int64, changed bool) {
	d.mu.Lock()
	if changed {
		d.blocks, d.trimBefore = parts, trimBefore
	}
	d.tail = d.union.tailBatches(d.trimBefore)
	d.mu.Unlock()
	for _, p := range gone { // dropped: readers holding a snapshot keep theirs
		p.unref()
	}
}

// bucketDatasets lists the dataset names that have a prefix in the bucket.
func bucketDatasets(ctx context.Context, objs ObjectStore) ([]string, error) {
	res, err := objs.List(ctx, "datasets/", "/")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range res.Prefixes {
		name := strings.TrimSuffix(strings.TrimPrefix(p, "datasets/"), "/")
		if ValidateName(name) == nil {
			names = append(names, name)
		}
	}
	return names, nil
}

// opTimeout bounds one catalog or upload step; the ObjectStore retries
// inside it.
const opTimeout = 2 * time.Minute

// objectSource reads a block's ranges from the bucket (through the
// caches the ObjectStore implementation keeps).
type objectSource struct {
	objs ObjectStore
	key  string
}

func (s objectSource) readRange(off, n int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	return s.objs.GetRange(ctx, s.key, int64(off), int64(n))
}

// remotePart makes a part of a catalog entry: no request until a column
// is read, or until a query first needs the term filters the entry left
// out (one ranged GET of the block's index, shared by its columns).
func remotePart(objs ObjectStore, b catalogBlock, logf func(string, ...any)) (*blockPart, error) {
	idx, err := parseCatalogIndex(b)
	if err != nil {
		return nil, err
	}
	p, err := indexedPart(b.ID, b.Key, idx, nil, objectSource{objs, b.Key}, int(b.Size), nil)
	if err != nil {
		return nil, err
	}
	p.durable = true
	switch {
	case len(b.TermRanges) > 0:
		if err := attachTermRanges(p, objs, b, logf); err != nil {
			return nil, err
		}
	case b.Terms && b.IndexLength > 0: // an entry without ranges: the whole index
		full := sync.OnceValues(func() (*blockIndex, error) { return fetchIndex(objs, b, idx) })
		for i := range p.meta {
			if p.meta[i].Key.Type != vector.String {
				continue
			}
			p.meta[i].Terms = lazyTermFilter(func() *TermFilter {
				fi, err := full()
				if err != nil {
					logf("store: block %s: reading its term filters: %v (scanning it without them)", b.Key, err)
					return nil
				}
				return fi.cols[i].filter
			})
		}
	}
	return p, nil
}

// attachTermRanges gives each column of p that has term filters in the
// object a filter read on first use: one ranged GET of exactly that
// column's filters, checked against the CRC the catalog holds.
func attachTermRanges(p *blockPart, objs ObjectStore, b catalogBlock, logf func(string, ...any)) error {
	version := max(b.BlockVersion, 1)
	for _, r := range b.TermRanges {
		if r.Col < 0 || r.Col >= len(p.meta) || p.meta[r.Col].Key.Type != vector.String ||
			r.Off < b.IndexOffset || r.Len <= 0 || r.Off+int64(r.Len) > b.IndexOffset+b.IndexLength {
			return &CorruptionError{File: b.Key, Reason: fmt.Sprintf("catalog: term filter range of column %d out of the index", r.Col)}
		}
		p.meta[r.Col].Terms = lazyTermFilter(func() *TermFilter {
			f, err := fetchTermRange(objs, b.Key, r, version, b.Rows)
			if err != nil {
				logf("store: block %s: reading the term filters of column %d: %v (scanning it without them)", b.Key, r.Col, err)
				return nil
			}
			return f
		})
	}
	return nil
}

// fetchTermRange reads and parses one column's term filters.
func fetchTermRange(objs ObjectStore, key string, r termRange, version, rows int) (*TermFilter, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	t, err := objs.GetRange(ctx, key, r.Off, int64(r.Len))
	if err != nil {
		return nil, err
	}
	if crc(t) != r.CRC {
		return nil, &CorruptionError{File: key, Offset: r.Off, Reason: "term filter checksum mismatch"}
	}
	f, err := parseTermFilter(t, version, rows)
	if err != nil {
		return nil, &CorruptionError{File: key, Offset: r.Off, Reason: err.Error()}
	}
	return f, nil
}

// fetchIndex reads a block's whole index and trailer from the bucket
// (term filters included) and checks it against the catalog's copy: the
// same columns at the same offsets.
func fetchIndex(objs ObjectStore, b catalogBlock, lean *blockIndex) (*blockIndex, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	raw, err := objs.GetRange(ctx, b.Key, b.IndexOffset, b.IndexLength+trailerLen)
	if err != nil {
		return nil, err
	}
	ib, tr := raw[:b.IndexLength], raw[b.IndexLength:]
	if crc(ib) != binary.LittleEndian.Uint32(tr[12:]) || string(tr[16:]) != trailerMagic {
		return nil, &CorruptionError{File: b.Key, Offset: b.IndexOffset, Reason: "index checksum mismatch"}
	}
	full, err := parseIndex(b.Key, ib, b.IndexOffset, max(b.BlockVersion, 1))
	if err != nil {
		return nil, err
	}
	if len(full.cols) != len(lean.cols) {
		return nil, &CorruptionError{File: b.Key, Offset: b.IndexOffset, Reason: "index differs from the catalog's"}
	}
	for i, c := range full.cols {
		if c.key != lean.cols[i].key || c.off != lean.cols[i].off || c.size != lean.cols[i].size {
			return nil, &CorruptionError{File: b.Key, Offset: b.IndexOffset, Reason: "index differs from the catalog's"}
		}
	}
	return full, nil
}
