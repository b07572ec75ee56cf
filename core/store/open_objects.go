//go:build !js

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// openObjects is Open for a DB whose blocks live in opts.Objects
// (OBJECTS.md): the node writes into its own slot ("Many writers"); its
// datasets are the registered ones, each with its WAL under
// dir/<dataset>/wal, replayed past its slot's catalog watermark.
func openObjects(dir string, opts Options) (*DB, error) {
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	slot, l, err := claimSlot(ctx, dir, opts)
	if err != nil {
		unlock()
		return nil, err
	}
	db := &DB{opts: opts, dir: dir, sets: make(map[string]*Dataset), unlock: unlock, lease: l,
		slot: slot, slotObjs: slotObjects(opts.Objects, slot), stopRefresh: make(chan struct{})}
	db.newFiles = db.createShared
	err = db.startTails(ctx)
	if err == nil {
		err = db.openSlot(ctx)
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	go db.syncLoop()
	go db.runTails()
	return db, nil
}

// openSlot opens the registered datasets this slot holds, drops what it
// holds of deleted ones, and joins the others.
func (db *DB) openSlot(ctx context.Context) error {
	reg, err := db.registry(ctx)
	if err != nil {
		return fmt.Errorf("store: reading the dataset registry: %w", err)
	}
	names, err := bucketDatasets(ctx, db.slotObjs)
	if err != nil {
		return fmt.Errorf("store: listing datasets in the bucket: %w", err)
	}
	for _, name := range names {
		cat, err := loadCatalog(ctx, db.slotObjs, name, nil)
		if err != nil {
			return fmt.Errorf("store: dataset %s: %w", name, err)
		}
		if cat == nil { // a create that never wrote its first version
			continue
		}
		if e, ok := reg[name]; !ok || !e.Created.Equal(cat.Created) {
			db.opts.Logf("store: dataset %s was deleted while this node was away: removing its copy in slot %s", name, db.slot)
			if err := db.removeCopy(ctx, name); err != nil {
				return err
			}
			continue
		}
		files, rec, err := openObjectDataset(db.dir, cat, db.opts, db.lease, db.slot)
		if err != nil {
			return fmt.Errorf("store: opening dataset %s: %w", name, err)
		}
		db.sets[name] = newDataset(db, name, cat.Created, files, rec)
	}
	for name, e := range reg {
		if _, ok := db.sets[name]; !ok {
			if err := db.join(ctx, e); err != nil {
				return err
			}
		}
	}
	return db.loadAllForeign(ctx, reg)
}

// openObjectDataset recovers a dataset from its newest catalog version
// and its local WAL.
func openObjectDataset(dir string, cat *catalog, opts Options, l *lease, slot string) (*objFiles, *recovered, error) {
	local := filepath.Join(dir, cat.Dataset)
	f := &osFiles{dir: local, walDir: filepath.Join(local, "wal"), blockDir: filepath.Join(local, "blocks"), noSync: opts.NoSync}
	if err := os.MkdirAll(f.walDir, 0o755); err != nil {
		return nil, nil, err
	}
	of := newObjFiles(f, cat, opts, l, slot)
	rec := &recovered{trimBefore: cat.TrimBefore, nextBlock: max(cat.NextBlock, 1)}
	for _, b := range cat.Blocks {
		p, err := of.part(b)
		if err != nil {
			unrefAll(rec.blocks)
			return nil, nil, err
		}
		rec.blocks = append(rec.blocks, p)
		rec.nextBlock = max(rec.nextBlock, b.ID+1)
	}
	lastSeg, err := replayWAL(f, rec, cat.watermark(), opts)
	if err == nil {
		err = f.startSegment(lastSeg + 1)
	}
	if err != nil {
		unrefAll(rec.blocks)
		return nil, nil, err
	}
	return of, rec, nil
}

// createObjectDataset writes the dataset's first catalog version in the
// slot (which fails if another process on the slot created it first) and
// its local WAL directory.
func createObjectDataset(dir, name string, created time.Time, opts Options, l *lease, slot string) (*objFiles, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := l.check(); err != nil {
		return nil, err
	}
	cat := &catalog{Version: 1, Dataset: name, Created: created, NextBlock: 1, Lease: l.token()}
	if err := writeCatalog(ctx, slotObjects(opts.Objects, slot), nil, cat); err != nil {
		return nil, err
	}
	local := filepath.Join(dir, name)
	_ = os.RemoveAll(local) // a WAL left by an earlier dataset of this name
	f := &osFiles{dir: local, walDir: filepath.Join(local, "wal"), blockDir: filepath.Join(local, "blocks"), noSync: opts.NoSync}
	if err := os.MkdirAll(f.walDir, 0o755); err != nil {
		return nil, err
	}
	if err := f.startSegment(1); err != nil {
		return nil, err
	}
	return newObjFiles(f, cat, opts, l, slot), nil
}

// newObjFiles is a dataset's storage in a slot.
func newObjFiles(f *osFiles, cat *catalog, opts Options, l *lease, slot string) *objFiles {
	return &objFiles{osFiles: f, root: opts.Objects, objs: slotObjects(opts.Objects, slot), prefix: slotPrefix(slot),
		name: cat.Dataset, grace: opts.Grace, logf: opts.Logf, cat: cat, swept: map[string]bool{}, lastSweep: time.Now(), lease: l}
}

// takeLease acquires a slot's writer lease for this process and keeps
// renewing it (OBJECTS.md, "The writer lease"). It runs with the data
// directory locked, so a lease held by this directory on this host is a
// dead process's and is taken over at once.
func takeLease(ctx context.Context, dir string, objs ObjectStore, opts Options) (*lease, error) {
	node, err := nodeID(dir)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	id := leaseID{Host: host, Pid: os.Getpid(), Node: node, Nonce: nonce()}
	l, err := acquireLease(ctx, objs, id, opts.LeaseTTL, opts.leaseNow, opts.Logf)
	if err != nil {
		return nil, err
	}
	l.keep()
	return l, nil
}

// slotFile names the data directory's slot (OBJECTS.md, "Many writers").
const slotFile = "writer-slot"

// claimSlot takes the lease of the data directory's slot, choosing the
// slot on first start: slot 0 on a prefix no writer ever used (so one
// writer keeps the single-writer layout) or for a directory an earlier
// aplite wrote with, a new random slot otherwise.
func claimSlot(ctx context.Context, dir string, opts Options) (string, *lease, error) {
	p := filepath.Join(dir, slotFile)
	if b, err := os.ReadFile(p); err == nil {
		slot := strings.TrimSpace(string(b))
		if !validSlot(slot) {
			return "", nil, fmt.Errorf("store: %s names slot %q: want hex digits", p, slot)
		}
		l, err := takeLease(ctx, dir, slotObjects(opts.Objects, slot), opts)
		return slot, l, err
	}
	slot := nonce()
	_, idErr := os.Stat(filepath.Join(dir, "writer-id"))
	_, leaseErr := opts.Objects.Get(ctx, leaseKey)
	if idErr == nil || errors.Is(leaseErr, ErrObjectNotFound) {
		slot = legacySlot
	}
	// The slot is kept before its lease is taken: a start that fails
	// after this (the bucket down) comes back to the same slot, never to
	// slot 0 because takeLease left a writer-id behind.
	persist := func(slot string) error {
		if err := os.WriteFile(p, []byte(slot+"\n"), 0o644); err != nil {
			return fmt.Errorf("store: writing the slot id: %w", err)
		}
		return nil
	}
	if err := persist(slot); err != nil {
		return "", nil, err
	}
	l, err := takeLease(ctx, dir, slotObjects(opts.Objects, slot), opts)
	if errors.Is(err, ErrLeaseHeld) && slot == legacySlot && idErr != nil { // another new node was quicker
		slot = nonce()
		if err := persist(slot); err != nil {
			return "", nil, err
		}
		l, err = takeLease(ctx, dir, slotObjects(opts.Objects, slot), opts)
	}
	if err != nil {
		return "", nil, err
	}
	return slot, l, nil
}

// nodeID is the data directory's random id (file writer-id), made on
// first use.
func nodeID(dir string) (string, error) {
	p := filepath.Join(dir, "writer-id")
	if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	id := nonce() + nonce()
	if err := os.WriteFile(p, []byte(id+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("store: writing the node id: %w", err)
	}
	return id, nil
}
