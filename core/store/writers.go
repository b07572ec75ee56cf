//go:build !js

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A writer among many (OBJECTS.md, "Many writers"): the datasets are the
// registry's; this node writes only its own slot, follows the registry
// (joins, deletes, trims made on other nodes) and reads the other slots
// for its queries, every opts.Refresh.

// createShared registers a new dataset, then writes its first version in
// this node's slot.
func (db *DB) createShared(name string, created time.Time) (dsFiles, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := db.lease.check(); err != nil {
		return nil, err
	}
	if err := register(ctx, db.opts.Objects, regEntry{Dataset: name, Created: created}); err != nil {
		return nil, err
	}
	if err := db.removeCopy(ctx, name); err != nil { // a deleted generation's leftover
		return nil, err
	}
	return createObjectDataset(db.dir, name, created, db.opts, db.lease, db.slot)
}

// registry reads the registry; a prefix an earlier aplite wrote (no
// registry yet) has its slot 0 datasets registered first, so deletes and
// trims from now on go through the registry.
func (db *DB) registry(ctx context.Context) (map[string]regEntry, error) {
	reg, legacy, err := readRegistry(ctx, db.opts.Objects, &db.regCache)
	if err != nil || !legacy {
		return reg, err
	}
	if err := db.lease.check(); err != nil {
		return nil, err
	}
	for _, e := range reg {
		if err := register(ctx, db.opts.Objects, e); err != nil && !errors.Is(err, ErrExists) {
			return nil, err
		}
	}
	if err := db.opts.Objects.PutIfAbsent(ctx, registryMark, []byte("{}\n")); err != nil && !errors.Is(err, ErrObjectExists) {
		return nil, err
	}
	return reg, nil
}

// join opens the registered dataset e in this node's slot: its copy
// there if the slot holds this generation, else a new first version.
func (db *DB) join(ctx context.Context, e regEntry) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return ErrClosed
	}
	if _, ok := db.sets[e.Dataset]; ok {
		return nil
	}
	cat, err := loadCatalog(ctx, db.slotObjs, e.Dataset, nil)
	if err != nil {
		return fmt.Errorf("store: dataset %s: %w", e.Dataset, err)
	}
	if cat != nil && cat.Created.Equal(e.Created) {
		files, rec, err := openObjectDataset(db.dir, cat, db.opts, db.lease, db.slot)
		if err != nil {
			return fmt.Errorf("store: opening dataset %s: %w", e.Dataset, err)
		}
		db.sets[e.Dataset] = newDataset(db, e.Dataset, cat.Created, files, rec)
		return nil
	}
	if cat != nil {
		if err := db.removeCopy(ctx, e.Dataset); err != nil {
			return err
		}
	}
	files, err := createObjectDataset(db.dir, e.Dataset, e.Created, db.opts, db.lease, db.slot)
	if err != nil {
		return fmt.Errorf("store: joining dataset %s: %w", e.Dataset, err)
	}
	db.sets[e.Dataset] = newDataset(db, e.Dataset, e.Created, files, &recovered{nextSeq: 1, nextBlock: 1})
	return nil
}

// joinNamed joins a dataset another node registered, if it is.
func (db *DB) joinNamed(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	e, err := getRegEntry(ctx, db.opts.Objects, name)
	if err != nil {
		return err
	}
	if err := db.join(ctx, e); err != nil {
		return err
	}
	return db.loadAllForeign(ctx, map[string]regEntry{name: e})
}

// removeCopy deletes what this slot holds of a dataset, in the bucket and
// in the data directory (a deleted generation's).
func (db *DB) removeCopy(ctx context.Context, name string) error {
	if err := db.lease.check(); err != nil {
		return err
	}
	for _, prefix := range []string{catalogPrefix(name), datasetPrefix(name)} {
		res, err := db.slotObjs.List(ctx, prefix, "")
		if err != nil {
			return err
		}
		for _, o := range res.Objects {
			if err := db.slotObjs.Delete(ctx, o.Key); err != nil {
				return err
			}
		}
	}
	return os.RemoveAll(filepath.Join(db.dir, name))
}

// dropStale closes and removes this node's copy of a dataset deleted (or
// deleted and created again) on another node.
func (db *DB) dropStale(ctx context.Context, d *Dataset) error {
	db.mu.Lock()
	if db.sets[d.name] != d {
		db.mu.Unlock()
		return nil
	}
	delete(db.sets, d.name)
	db.mu.Unlock()
	db.opts.Logf("store: dataset %s was deleted on another node: removing its copy in slot %s", d.name, db.slot)
	d.shutdown(false)
	return db.removeCopy(ctx, d.name)
}

// syncLoop follows the registry and the other slots until Close.
func (db *DB) syncLoop() {
	db.everyRefresh(opTimeout, "following the other writers", func(ctx context.Context) error {
		if err := db.syncSlots(ctx); !errors.Is(err, ErrClosed) {
			return err
		}
		return nil
	})
}

// syncSlots applies the registry to this slot (deletes, trims, datasets
// created elsewhere) and reloads the other slots' blocks.
func (db *DB) syncSlots(ctx context.Context) error {
	listed := time.Now()
	reg, err := db.registry(ctx)
	if err != nil {
		return fmt.Errorf("reading the dataset registry: %w", err)
	}
	for _, d := range db.List() {
		e, ok := reg[d.name]
		if !ok || !e.Created.Equal(d.created) {
			if d.added.Before(listed) { // else created or joined after the listing
				if err := db.dropStale(ctx, d); err != nil {
					return err
				}
			}
			continue
		}
		d.mu.RLock()
		behind := e.TrimBefore > d.trimBefore
		d.mu.RUnlock()
		if behind {
			if _, err := d.Trim(e.TrimBefore); err != nil {
				return fmt.Errorf("dataset %s: trimming as another node did: %w", d.name, err)
			}
		}
	}
	for name, e := range reg {
		if _, err := db.Get(name); errors.Is(err, ErrNotFound) {
			if err := db.join(ctx, e); err != nil {
				return err
			}
		}
	}
	return db.loadAllForeign(ctx, reg)
}

// loadAllForeign reloads every registered dataset's blocks in the other
// writers' slots.
func (db *DB) loadAllForeign(ctx context.Context, reg map[string]regEntry) error {
	slots, err := listSlots(ctx, db.opts.Objects)
	if err != nil {
		return fmt.Errorf("listing the writers' slots: %w", err)
	}
	for _, d := range db.List() {
		if e, ok := reg[d.name]; ok && e.Created.Equal(d.created) {
			if err := d.loadForeign(ctx, slots, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadForeign reloads the dataset's blocks in the other writers' slots.
func (d *Dataset) loadForeign(ctx context.Context, slots []string, e regEntry) error {
	d.union.mu.Lock()
	defer d.union.mu.Unlock()
	parts, gone, changed, err := d.union.load(ctx, d.db.opts.Objects, slots, d.db.slot, e, d.db.opts.Logf)
	if err != nil || !changed {
		return err
	}
	d.life.RLock()
	closed := d.closed
	if !closed {
		d.mu.Lock()
		d.foreign = parts
		d.mu.Unlock()
	}
	d.life.RUnlock()
	if closed { // shutdown released what it held; the rest is garbage
		return nil
	}
	for _, p := range gone {
		p.unref()
	}
	return nil
}

// FollowsOthers reports whether this DB is a writer among many, whose
// queries read the other writers' slots (OBJECTS.md, "Many writers").
func (db *DB) FollowsOthers() bool { return db.slotObjs != nil }

// RefreshOthers reads the other writers' newest blocks now, rather than
// at the next refresh: a query node that read them first may name them.
func (db *DB) RefreshOthers(ctx context.Context) error {
	if db.slotObjs == nil {
		return nil
	}
	reg, err := db.registry(ctx)
	if err != nil {
		return err
	}
	return db.loadAllForeign(ctx, reg)
}
