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
		path := filepath.Join(dir, p.File)
		if strings.HasSuffix(p.File, ".blk") {
			if err := os.Rename(path, path+".corrupt"); err != nil {
				return probs, err
			}
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return probs, err
		}
		valid, _ := scanWAL(path, data, func(uint64, []byte, int64) bool { return true })
		if valid < walHeaderLen {
			valid = 0
		}
		if err := os.Truncate(path, int64(valid)); err != nil {
			return probs, err
		}
	}
	return probs, nil
}

type checkItem struct {
	dataset, rel string
	wal, last    bool
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
		for _, b := range blocks {
			rel, _ := filepath.Rel(dir, b)
			out = append(out, checkItem{dataset: ds, rel: rel})
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
	data, err := os.ReadFile(path)
	if err != nil {
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: err.Error()}
	}
	bad := func(err error) *Problem {
		return &Problem{Dataset: f.dataset, File: f.rel, Reason: corruptionReason(err)}
	}
	if f.wal {
		if _, cerr := scanWAL(path, data, func(uint64, []byte, int64) bool { return true }); cerr != nil {
			p := bad(cerr)
			p.Torn = f.last
			return p
		}
		return nil
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
