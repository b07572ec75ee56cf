//go:build !js

package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Problem is damage Check found: a block that does not parse or whose
// column fails its checksum, or a WAL segment with a damaged record.
type Problem struct {
	Dataset string
	File    string // relative to the data directory
	Reason  string
	// Torn marks a damaged tail of the newest WAL segment: what a crash
	// mid-write leaves, holding only unacknowledged events.
	Torn bool
	// SetAside marks damage set aside earlier (a *.corrupt or *.missing
	// file): its events are missing from the dataset, and nothing is
	// left to repair.
	SetAside bool
	// Missing marks a block the manifest lists whose file is gone.
	Missing bool
}

// CheckProgress hears of every file Check reads: i of n files.
type CheckProgress func(i, n int, file string)

// Check verifies every checksum under a stopped data directory: each
// block's framing, index and every column blob, and each WAL record. It
// changes nothing; Repair sets damage aside.
func Check(dir string, progress CheckProgress) ([]Problem, error) {
	files, err := checkFiles(dir)
	if err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the data directory is in use (stop the server first): %w", err)
	}
	defer unlock()
	var out []Problem
	for i, f := range files {
		if progress != nil {
			progress(i+1, len(files), f.rel)
		}
		if p := checkFile(dir, f); p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// Repair sets aside what Check reports: damaged blocks are renamed
// *.corrupt (the server then lists them in the dataset's info) and WAL
// segments are cut before their first damaged record. It returns what it
// did.
func Repair(dir string, progress CheckProgress) ([]Problem, error) {
	probs, err := Check(dir, progress)
	if err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, p := range probs {
		if err := repairOne(dir, p); err != nil {
			return probs, err
		}
	}
	return probs, nil
}

// repairOne sets aside one problem Check found.
func repairOne(dir string, p Problem) error {
	path := filepath.Join(dir, p.File)
	switch {
	case p.SetAside:
		return nil
	case p.Missing:
		return acknowledgeMissing(filepath.Join(dir, p.Dataset), path)
	case strings.HasSuffix(p.File, ".blk"):
		return os.Rename(path, path+".corrupt")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	scan := scanWAL(path, data, 0, func(uint64, []byte, int64) bool { return true })
	_, err = setAsideWAL(path, data, scan, !p.Torn, true, nil)
	return err
}

type checkItem struct {
	dataset, rel     string
	wal, last, aside bool
	missing          bool
	want             int64 // the block's size in the manifest; -1 unlisted
}

// acknowledgeMissing drops a missing block from its dataset's manifest
// and leaves blocks/<id>.blk.missing in its place, so the loss is still
// reported but no longer fails a check.
func acknowledgeMissing(dsDir, path string) error {
	id, ok := blockFileID(filepath.Base(path))
	listed, have, err := readManifest(dsDir)
	if !ok || !have || err != nil {
		return fmt.Errorf("%s: cannot read the block manifest: %v", path, err)
	}
	if err := writeFileDurable(path+".missing", nil, true); err != nil {
		return err
	}
	delete(listed, id)
	m := &blockManifest{path: filepath.Join(dsDir, manifestName), sync: true, blocks: listed}
	return m.write()
}

// manifestItems lists the blocks a dataset's manifest names whose files
// are gone (and that no surviving block replaced, and that were not set
// aside), and returns every listed block's size for the size check.
func manifestItems(dir, ds string, blocks []string) ([]checkItem, map[string]int64) {
	listed, have, err := readManifest(filepath.Join(dir, ds))
	if !have || err != nil {
		return nil, nil
	}
	sizes := map[string]int64{}
	present := map[uint64]bool{}
	for _, b := range blocks {
		if id, ok := blockFileID(filepath.Base(b)); ok {
			present[id] = true
		}
	}
	var gone []uint64
	for id, size := range listed {
		rel := filepath.Join(ds, "blocks", fmt.Sprintf("%016x.blk", id))
		sizes[rel] = size
		if !present[id] {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return nil, sizes
	}
	replaced := map[uint64]bool{}
	for _, b := range blocks {
		if data, err := os.ReadFile(b); err == nil {
			if p, err := newBlockPart(0, b, data, nil); err == nil {
				for _, id := range p.idx.replaced {
					replaced[id] = true
				}
			}
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	var out []checkItem
	for _, id := range gone {
		rel := filepath.Join(ds, "blocks", fmt.Sprintf("%016x.blk", id))
		if replaced[id] || exists(filepath.Join(dir, rel+".corrupt")) || exists(filepath.Join(dir, rel+".missing")) {
			continue
		}
		out = append(out, checkItem{dataset: ds, rel: rel, missing: true})
	}
	return out, sizes
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// checkWAL reports a segment's damage (every run, with its offset) or its
// torn tail.
func checkWAL(f checkItem, path string, data []byte) *Problem {
	scan := scanWAL(path, data, 0, func(uint64, []byte, int64) bool { return true })
	var why []string
	for _, g := range scan.damage {
		why = append(why, fmt.Sprintf("%s at offset %d (%d bytes, intact records follow)", g.reason, g.from, g.to-g.from))
	}
	if len(why) > 0 || scan.tail != nil && !f.last {
		if scan.tail != nil {
			why = append(why, fmt.Sprintf("%s at offset %d (to the end of the segment)", scan.tail.Reason, scan.tail.Offset))
		}
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: strings.Join(why, "; ")}
	}
	if scan.tail != nil {
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: corruptionReason(scan.tail), Torn: true}
	}
	return nil
}

// checkFiles lists the blocks and WAL segments, in a stable order.
func checkFiles(dir string) ([]checkItem, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []checkItem
	for _, e := range ents {
		if !e.IsDir() || ValidateName(e.Name()) != nil {
			continue
		}
		ds := e.Name()
		blocks, _ := filepath.Glob(filepath.Join(dir, ds, "blocks", "*.blk"))
		sort.Strings(blocks)
		missing, sizes := manifestItems(dir, ds, blocks)
		for _, b := range blocks {
			rel, _ := filepath.Rel(dir, b)
			want, ok := sizes[rel]
			if !ok {
				want = -1
			}
			out = append(out, checkItem{dataset: ds, rel: rel, want: want})
		}
		out = append(out, missing...)
		aside, _ := filepath.Glob(filepath.Join(dir, ds, "*", "*.corrupt"))
		marks, _ := filepath.Glob(filepath.Join(dir, ds, "blocks", "*.blk.missing"))
		aside = append(aside, marks...)
		sort.Strings(aside)
		for _, a := range aside {
			rel, _ := filepath.Rel(dir, a)
			out = append(out, checkItem{dataset: ds, rel: rel, aside: true})
		}
		segs, _ := listSegments(filepath.Join(dir, ds, "wal"))
		for i, n := range segs {
			out = append(out, checkItem{dataset: ds, rel: filepath.Join(ds, "wal", segName(n)), wal: true, last: i == len(segs)-1})
		}
	}
	return out, nil
}

func checkFile(dir string, f checkItem) *Problem {
	path := filepath.Join(dir, f.rel)
	if f.missing {
		return &Problem{Dataset: f.dataset, File: f.rel, Missing: true, Reason: "missing: listed in the block manifest but the file is gone; its events are lost"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: err.Error()}
	}
	bad := func(err error) *Problem {
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: corruptionReason(err)}
	}
	if f.aside {
		return &Problem{Dataset: f.dataset, File: f.rel, SetAside: true, Reason: fmt.Sprintf("set aside earlier (%d bytes); its events are missing from the dataset", len(data))}
	}
	if f.wal {
		return checkWAL(f, path, data)
	}
	if f.want >= 0 && !f.aside && int64(len(data)) != f.want {
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: fmt.Sprintf("truncated: the file has %d bytes, the block manifest lists %d", len(data), f.want)}
	}
	p, err := newBlockPart(0, path, data, nil)
	if err != nil {
		return bad(err)
	}
	for _, m := range p.Columns() {
		if _, err := p.ReadColumn(m.Key); err != nil {
			return bad(err)
		}
	}
	return nil
}
