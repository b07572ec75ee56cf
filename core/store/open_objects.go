//go:build !js

package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	db := &DB{opts: opts, dir: dir, sets: make(map[string]*Dataset), unlock: unlock}
	db.newFiles = func(name string, created time.Time) (dsFiles, error) {
		return createObjectDataset(dir, name, created, opts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	names, err := bucketDatasets(ctx, opts.Objects)
	if err != nil {
		unlock()
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
		files, rec, err := openObjectDataset(dir, cat, opts)
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
func openObjectDataset(dir string, cat *catalog, opts Options) (*objFiles, *recovered, error) {
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
		cat: cat, swept: map[string]bool{}, lastSweep: time.Now()}
	return of, rec, nil
}

// createObjectDataset writes the dataset's first catalog version (which
// fails if another node created it first) and its local WAL directory.
func createObjectDataset(dir, name string, created time.Time, opts Options) (dsFiles, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	cat := &catalog{Version: 1, Dataset: name, Created: created, NextBlock: 1}
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
		cat: cat, swept: map[string]bool{}, lastSweep: time.Now()}, nil
}
