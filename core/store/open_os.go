//go:build !js

package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Open opens (creating if needed) a data directory holding one
// subdirectory per dataset, and recovers each dataset: blocks are mapped,
// blocks superseded by a finished compaction are removed, and the WAL past
// the flushed watermark is replayed into the buffer (a torn tail is cut).
// With opts.Objects set, blocks live in the object store instead and the
// directory keeps only the WALs (OBJECTS.md).
func Open(dir string, opts Options) (*DB, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if opts.Objects != nil {
		return openObjects(dir, opts)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		unlock()
		return nil, err
	}
	db := &DB{opts: opts, dir: dir, sets: make(map[string]*Dataset), unlock: unlock}
	db.newFiles = func(name string, created time.Time) (dsFiles, error) {
		return createDatasetDir(dir, name, created, opts)
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() {
			continue
		}
		if strings.HasPrefix(name, ".") { // an interrupted create or delete
			_ = os.RemoveAll(filepath.Join(dir, name))
			continue
		}
		if ValidateName(name) != nil {
			opts.Logf("store: ignoring directory %q: not a dataset name", name)
			continue
		}
		files, rec, created, err := openDatasetDir(filepath.Join(dir, name), opts)
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("store: opening dataset %s: %w", name, err)
		}
		db.sets[name] = newDataset(db, name, created, files, rec)
	}
	return db, nil
}

// openDatasetDir recovers one dataset directory.
func openDatasetDir(dir string, opts Options) (*osFiles, *recovered, time.Time, error) {
	var meta dsMeta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, nil, time.Time{}, &CorruptionError{File: filepath.Join(dir, "meta.json"), Reason: err.Error()}
	}
	f := &osFiles{dir: dir, walDir: filepath.Join(dir, "wal"), blockDir: filepath.Join(dir, "blocks"), noSync: opts.NoSync}
	for _, sub := range []string{f.walDir, f.blockDir} {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return nil, nil, time.Time{}, err
		}
	}
	rec := &recovered{trimBefore: meta.TrimBefore}
	watermark, err := loadBlocks(f, rec, opts)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	lastSeg, err := replayWAL(f, rec, watermark, opts)
	if err != nil {
		unrefAll(rec.blocks)
		return nil, nil, time.Time{}, err
	}
	if err := f.startSegment(lastSeg + 1); err != nil {
		unrefAll(rec.blocks)
		return nil, nil, time.Time{}, err
	}
	return f, rec, meta.Created, nil
}

// loadBlocks maps every block, sets corrupt ones aside, deletes blocks a
// surviving block replaced, and returns the flushed WAL watermark.
func loadBlocks(f *osFiles, rec *recovered, opts Options) (uint64, error) {
	ents, err := os.ReadDir(f.blockDir)
	if err != nil {
		return 0, err
	}
	maxID := uint64(0)
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(f.blockDir, name)
		if strings.HasSuffix(name, ".tmp") {
			_ = os.Remove(path)
			continue
		}
		if strings.HasSuffix(name, ".blk.corrupt") { // set aside at an earlier start
			info, _ := e.Info()
			found := time.Now().UTC()
			if info != nil {
				found = info.ModTime().UTC()
			}
			rec.damaged = append(rec.damaged, Damage{Name: strings.TrimSuffix(name, ".corrupt"), Reason: "set aside as corrupt", Found: found})
			continue
		}
		hexID, ok := strings.CutSuffix(name, ".blk")
		if !ok {
			continue
		}
		id, err := strconv.ParseUint(hexID, 16, 64)
		if err != nil {
			continue
		}
		maxID = max(maxID, id)
		p, err := mapBlock(id, path)
		if err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				unrefAll(rec.blocks)
				return 0, err
			}
			opts.Logf("store: setting aside corrupt block %s: %v", path, err)
			_ = os.Rename(path, path+".corrupt")
			rec.damaged = append(rec.damaged, Damage{Name: name, Reason: ce.Reason, Found: time.Now().UTC()})
			continue
		}
		p.durable = true
		rec.blocks = append(rec.blocks, p)
	}
	replaced := map[uint64]bool{}
	for _, p := range rec.blocks {
		for _, id := range p.idx.replaced {
			replaced[id] = true
			maxID = max(maxID, id)
		}
	}
	kept := rec.blocks[:0]
	watermark := uint64(0)
	for _, p := range rec.blocks {
		if replaced[p.id] { // a compaction finished but its inputs survived a crash
			_ = os.Remove(p.file)
			p.unref()
			continue
		}
		watermark = max(watermark, p.idx.walSeqMax)
		kept = append(kept, p)
	}
	rec.blocks = kept
	slices.SortFunc(rec.blocks, func(a, b *blockPart) int { return cmpInt(int64(a.id), int64(b.id)) })
	rec.nextBlock = maxID + 1
	return watermark, nil
}

// replayWAL buffers every intact record above the watermark, cuts torn
// tails, sets damage aside (FORMAT.md, "WAL"), deletes segments holding
// nothing to replay, and returns the highest segment number seen.
func replayWAL(f *osFiles, rec *recovered, watermark uint64, opts Options) (uint64, error) {
	segs, err := listSegments(f.walDir)
	if err != nil {
		return 0, err
	}
	rec.damaged = append(rec.damaged, setAsideWALFiles(f.walDir)...)
	lastSeq := uint64(0)
	for i, n := range segs {
		path := filepath.Join(f.walDir, segName(n))
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		kept := 0
		scan := scanWAL(path, data, lastSeq, func(seq uint64, payload []byte, off int64) bool {
			if seq <= lastSeq {
				return true // a duplicate can only come from damage; keep the first
			}
			if seq > watermark {
				rows := decodeRows(newReader(path, off, payload))
				if rows == nil {
					return false
				}
				if rec.trimBefore != 0 {
					rows = filterRows(rows, rec.trimBefore)
				}
				rec.replay = append(rec.replay, walRecord{seq: seq, rows: rows})
				kept++
			}
			lastSeq = seq
			return true
		})
		last := i == len(segs)-1 // only the last segment may end torn by a crash
		if scan.tail != nil && last && len(scan.damage) == 0 {
			opts.Logf("store: cutting torn WAL tail at %v", scan.tail)
		}
		flushed := func(g walGap) bool { return g.next-1 <= watermark }
		aside, err := setAsideWAL(path, data, scan, !last, !opts.NoSync, flushed)
		if err != nil {
			return 0, err
		}
		for _, a := range aside {
			opts.Logf("store: damaged WAL bytes set aside in %s: %s; the intact records after them were kept", a.Name, a.Reason)
		}
		rec.damaged = append(rec.damaged, aside...)
		if kept == 0 {
			_ = os.Remove(path)
		}
	}
	rec.nextSeq = max(watermark, lastSeq) + 1
	if len(segs) == 0 {
		return 0, nil
	}
	return segs[len(segs)-1], nil
}
