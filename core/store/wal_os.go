//go:build !js

package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// setAsideWAL makes a scanned segment hold only its intact records: each
// damaged run (and the tail too when tailIsDamage, in a segment that is
// not the last, where no crash can have cut a write short) is written to
// wal/<segment>.wal.<offset>.corrupt, then the segment is rewritten
// without them; a torn tail alone is just cut. It returns the damage set
// aside, named relative to the dataset directory. A run for which
// flushed(g) is true held only records already in durable blocks: it is
// cut out but costs nothing, so it is not set aside.
func setAsideWAL(path string, data []byte, scan walScan, tailIsDamage, sync bool, flushed func(walGap) bool) ([]Damage, error) {
	var gaps []walGap
	for _, g := range scan.damage {
		if flushed == nil || !flushed(g) {
			gaps = append(gaps, g)
		}
	}
	if tailIsDamage && scan.tail != nil {
		gaps = append(gaps[:len(gaps):len(gaps)], walGap{from: scan.valid, to: len(data), reason: scan.tail.Reason})
	}
	if len(gaps) == 0 && len(scan.damage) == 0 {
		if scan.tail == nil {
			return nil, nil
		}
		return nil, os.Truncate(path, int64(cutAt(scan.valid)))
	}
	var out []Damage
	for _, g := range gaps {
		name, err := writeAside(path, g.from, data[g.from:g.to], sync)
		if err != nil {
			return out, err
		}
		out = append(out, Damage{Name: "wal/" + name, Found: time.Now().UTC(),
			Reason: fmt.Sprintf("%s at offset %d of %s: %d damaged bytes set aside, the WAL records in them are lost", g.reason, g.from, filepath.Base(path), g.to-g.from)})
	}
	if scan.valid < walHeaderLen {
		return out, os.Truncate(path, 0)
	}
	return out, writeFileDurable(path, scan.keep(data), sync)
}

// cutAt is where a segment with a torn tail at valid is truncated: a
// segment without a whole header is emptied.
func cutAt(valid int) int {
	if valid < walHeaderLen {
		return 0
	}
	return valid
}

// writeAside writes damaged bytes of a segment next to it, under a name
// not yet taken, and returns that name.
func writeAside(seg string, off int, b []byte, sync bool) (string, error) {
	base := fmt.Sprintf("%s.%d", filepath.Base(seg), off)
	for i := 0; ; i++ {
		name := base + ".corrupt"
		if i > 0 {
			name = fmt.Sprintf("%s-%d.corrupt", base, i)
		}
		path := filepath.Join(filepath.Dir(seg), name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		return name, writeFileDurable(path, b, sync)
	}
}

// setAsideWALFiles lists the damaged WAL bytes set aside earlier: their
// records are lost until an operator deletes the files.
func setAsideWALFiles(walDir string) []Damage {
	ents, _ := os.ReadDir(walDir)
	var out []Damage
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".corrupt") {
			continue
		}
		found := time.Now().UTC()
		if info, err := e.Info(); err == nil {
			found = info.ModTime().UTC()
		}
		out = append(out, Damage{Name: "wal/" + e.Name(), Reason: "damaged WAL records set aside earlier; their events are lost", Found: found})
	}
	return out
}
