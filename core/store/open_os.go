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
	f := &osFiles{dir: dir, walDir: filepath.Join(dir, "wal"), blockDir: filepath.Join(dir, "blocks"), noSync: opts.NoSync, wrapSeg: opts.wrapWAL}
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
		if !errors.Is(err, ErrNoSpace) {
			unrefAll(rec.blocks)
			return nil, nil, time.Time{}, err
		}
		// A full disk must not keep the server from starting and serving
		// queries: the first append starts the segment (or is refused).
		opts.Logf("store: %s: the disk is full; the next WAL segment is started by the first append: %v", dir, err)
		f.segNum.Store(lastSeg + 1)
	}
	return f, rec, meta.Created, nil
}

// loadBlocks maps every block, sets corrupt ones aside, deletes blocks a
// surviving block replaced, checks the files against the block manifest
// (reporting listed blocks that are gone), and returns the flushed WAL
// watermark.
func loadBlocks(f *osFiles, rec *recovered, opts Options) (uint64, error) {
	ents, err := os.ReadDir(f.blockDir)
	if err != nil {
		return 0, err
	}
	listed, haveManifest, merr := readManifest(f.dir)
	if merr != nil {
		opts.Logf("store: %s: the block manifest does not parse (%v); rebuilding it from the block files", f.dir, merr)
	}
	if !haveManifest {
		listed = map[uint64]int64{}
	}
	settled := map[uint64]bool{} // set aside already: not missing
	maxID := uint64(0)
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(f.blockDir, name)
		if strings.HasSuffix(name, ".tmp") {
			_ = os.Remove(path)
			continue
		}
		if d, id, ok := setAsideBlock(e); ok { // set aside at an earlier start, or by repair
			rec.damaged = append(rec.damaged, d)
			settled[id] = true
			maxID = max(maxID, id)
			continue
		}
		id, ok := blockFileID(name)
		if !ok {
			continue
		}
		maxID = max(maxID, id)
		p, err := openBlockFile(id, path, e, listed, haveManifest)
		if err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				unrefAll(rec.blocks)
				return 0, err
			}
			opts.Logf("store: setting aside corrupt block %s: %v", path, err)
			_ = os.Rename(path, path+".corrupt")
			rec.damaged = append(rec.damaged, Damage{Name: name, Reason: ce.Reason, Found: time.Now().UTC()})
			settled[id] = true
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
	for id := range listed {
		maxID = max(maxID, id)
	}
	rec.nextBlock = maxID + 1
	f.manifest = reconcileManifest(f, rec, listed, haveManifest, replaced, settled, opts)
	return watermark, nil
}

// blockFileID parses a block file's name.
func blockFileID(name string) (uint64, bool) {
	hexID, ok := strings.CutSuffix(name, ".blk")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseUint(hexID, 16, 64)
	return id, err == nil
}

// setAsideBlock recognises a block set aside as corrupt (.blk.corrupt) or
// acknowledged missing by repair (.blk.missing): damage every query of
// the dataset reports until an operator deletes the file.
func setAsideBlock(e os.DirEntry) (Damage, uint64, bool) {
	name := e.Name()
	reason := "set aside as corrupt"
	base, ok := strings.CutSuffix(name, ".corrupt")
	if !ok {
		if base, ok = strings.CutSuffix(name, ".missing"); !ok {
			return Damage{}, 0, false
		}
		reason = "missing (its file was lost; acknowledged by aplite repair)"
	}
	id, ok := blockFileID(base)
	if !ok {
		return Damage{}, 0, false
	}
	found := time.Now().UTC()
	if info, err := e.Info(); err == nil {
		found = info.ModTime().UTC()
	}
	return Damage{Name: base, Reason: reason, Found: found}, id, true
}

// openBlockFile maps a block file, first checking its size against the
// manifest: a shorter file is corruption even where its tail would parse.
func openBlockFile(id uint64, path string, e os.DirEntry, listed map[uint64]int64, haveManifest bool) (*blockPart, error) {
	if want, ok := listed[id]; ok && haveManifest {
		if info, err := e.Info(); err == nil && info.Size() != want {
			return nil, &CorruptionError{File: path, Offset: info.Size(),
				Reason: fmt.Sprintf("truncated: the file has %d bytes, the block manifest lists %d", info.Size(), want)}
		}
	}
	return mapBlock(id, path)
}

// reconcileManifest compares the manifest with the blocks opened: a
// listed block that is gone (and neither replaced by a surviving block
// nor set aside) is reported and stays listed, so every open and `aplite
// check` report it until repair; unlisted blocks are adopted. The file
// is rewritten when it changed (a failure to is logged: the next block
// written rewrites it).
func reconcileManifest(f *osFiles, rec *recovered, listed map[uint64]int64, haveManifest bool, replaced, settled map[uint64]bool, opts Options) *blockManifest {
	m := &blockManifest{path: filepath.Join(f.dir, manifestName), sync: !f.noSync, blocks: map[uint64]int64{}}
	changed := !haveManifest
	present := map[uint64]bool{}
	for _, p := range rec.blocks {
		present[p.id] = true
		m.blocks[p.id] = int64(p.size)
		if _, ok := listed[p.id]; !ok && haveManifest {
			opts.Logf("store: %s: adopting block %016x, not in the block manifest (written just before a crash)", f.dir, p.id)
			changed = true
		}
	}
	for id, size := range listed {
		switch {
		case present[id]:
		case replaced[id] || settled[id]:
			changed = true
		default:
			name := fmt.Sprintf("%016x.blk", id)
			opts.Logf("store: %s: block %s is listed in the block manifest but its file is missing; its events are missing from every query (run aplite check)", f.dir, name)
			rec.damaged = append(rec.damaged, Damage{Name: name, Reason: "missing: listed in the block manifest but the file is gone", Found: time.Now().UTC()})
			m.blocks[id] = size
		}
	}
	if !haveManifest {
		opts.Logf("store: %s: no block manifest (a directory written before aplite kept one): built one from the %d block files present", f.dir, len(rec.blocks))
	}
	if changed {
		if err := m.write(); err != nil {
			opts.Logf("store: %s: writing the block manifest: %v", f.dir, err)
		}
	}
	return m
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
