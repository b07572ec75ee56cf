//go:build !js

package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// openObjects is Open for a DB whose blocks live in opts.Objects
// (OBJECTS.md): datasets are those with a catalog in the bucket; each has
// its WAL under dir/<dataset>/wal, replayed past the catalog's watermark.
func openObjects(dir string, opts Options) (*DB, error) {
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	l, err := takeLease(ctx, dir, opts)
	if err != nil {
		unlock()
		return nil, err
	}
	db := &DB{opts: opts, dir: dir, sets: make(map[string]*Dataset), unlock: unlock, lease: l}
	db.newFiles = func(name string, created time.Time) (dsFiles, error) {
		return createObjectDataset(dir, name, created, opts, l)
	}
	names, err := bucketDatasets(ctx, opts.Objects)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: listing datasets in the bucket: %w", err)
	}
	for _, name := range names {
		cat, err := loadCatalog(ctx, opts.Objects, name, nil)
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("store: dataset %s: %w", name, err)
		}
		if cat == nil { // a create that never wrote its first version
			continue
		}
		files, rec, err := openObjectDataset(dir, cat, opts, l)
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("store: opening dataset %s: %w", name, err)
		}
		db.sets[name] = newDataset(db, name, cat.Created, files, rec)
	}
	return db, nil
}

// openObjectDataset recovers a dataset from its newest catalog version
// and its local WAL.
func openObjectDataset(dir string, cat *catalog, opts Options, l *lease) (*objFiles, *recovered, error) {
	local := filepath.Join(dir, cat.Dataset)
	f := &osFiles{dir: local, walDir: filepath.Join(local, "wal"), blockDir: filepath.Join(local, "blocks"), noSync: opts.NoSync}
	if err := os.MkdirAll(f.walDir, 0o755); err != nil {
		return nil, nil, err
	}
	rec := &recovered{trimBefore: cat.TrimBefore, nextBlock: max(cat.NextBlock, 1)}
	for _, b := range cat.Blocks {
		p, err := remotePart(opts.Objects, b, opts.Logf)
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
	of := &objFiles{osFiles: f, objs: opts.Objects, name: cat.Dataset, grace: opts.Grace, logf: opts.Logf,
		cat: cat, swept: map[string]bool{}, lastSweep: time.Now(), lease: l}
	return of, rec, nil
}

// createObjectDataset writes the dataset's first catalog version (which
// fails if another node created it first) and its local WAL directory.
func createObjectDataset(dir, name string, created time.Time, opts Options, l *lease) (dsFiles, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := l.check(); err != nil {
		return nil, err
	}
	cat := &catalog{Version: 1, Dataset: name, Created: created, NextBlock: 1, Lease: l.token()}
	if err := writeCatalog(ctx, opts.Objects, nil, cat); err != nil {
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
	return &objFiles{osFiles: f, objs: opts.Objects, name: name, grace: opts.Grace, logf: opts.Logf,
		cat: cat, swept: map[string]bool{}, lastSweep: time.Now(), lease: l}, nil
}

// takeLease acquires the prefix's writer lease for this process and
// keeps renewing it (OBJECTS.md, "The writer lease"). It runs with the
// data directory locked, so a lease held by this directory on this host
// is a dead process's and is taken over at once.
func takeLease(ctx context.Context, dir string, opts Options) (*lease, error) {
	node, err := nodeID(dir)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	id := leaseID{Host: host, Pid: os.Getpid(), Node: node, Nonce: nonce()}
	l, err := acquireLease(ctx, opts.Objects, id, opts.LeaseTTL, opts.leaseNow, opts.Logf)
	if err != nil {
		return nil, err
	}
	l.keep()
	return l, nil
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
