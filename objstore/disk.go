package objstore

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Disk is a bounded cache of immutable object byte ranges in a local
// directory: the node's block cache. Entries are whole objects (blocks
// this node uploaded) or single ranges (columns it read); the least
// recently used go first when the total passes the limit. It survives
// restarts: the directory is scanned on open.
type Disk struct {
	dir   string
	limit int64

	mu    sync.Mutex
	used  int64
	items map[string]*diskItem
	// clock counts uses; an entry's last use is a tick of it, not a
	// time, so two uses in one clock reading still have an order.
	clock uint64
}

type diskItem struct {
	size int64
	used uint64
}

// OpenDisk opens (creating) a cache directory bounded to limit bytes.
func OpenDisk(dir string, limit int64) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("block cache: %w", err)
	}
	d := &Disk{dir: dir, limit: limit, items: map[string]*diskItem{}}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("block cache: %w", err)
	}
	// After a restart the files' modification times (when each was
	// cached) give the order of use.
	type found struct {
		name string
		info os.FileInfo
	}
	var all []found
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || e.IsDir() {
			continue
		}
		if strings.HasSuffix(e.Name(), ".tmp") {
			_ = os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		all = append(all, found{e.Name(), info})
	}
	slices.SortFunc(all, func(a, b found) int { return a.info.ModTime().Compare(b.info.ModTime()) })
	for _, f := range all {
		d.clock++
		d.items[f.name] = &diskItem{size: f.info.Size(), used: d.clock}
		d.used += f.info.Size()
	}
	d.mu.Lock()
	d.evict()
	d.mu.Unlock()
	return d, nil
}

// Used returns the bytes the cache holds.
func (d *Disk) Used() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.used
}

func entryName(key string, off, n int64) string {
	h := sha256.Sum256([]byte(key))
	base := hex.EncodeToString(h[:16])
	if n < 0 {
		return base + "-all"
	}
	return fmt.Sprintf("%s-%d-%d", base, off, n)
}

// Get returns n bytes at off of key from a range entry or a whole-object
// entry; ok is false on a miss.
func (d *Disk) Get(key string, off, n int64) ([]byte, bool) {
	for _, name := range []string{entryName(key, off, n), entryName(key, 0, -1)} {
		d.mu.Lock()
		it, ok := d.items[name]
		if ok {
			d.clock++
			it.used = d.clock
		}
		d.mu.Unlock()
		if !ok {
			continue
		}
		if b, err := d.read(name, off, n, strings.HasSuffix(name, "-all")); err == nil {
			return b, true
		}
	}
	return nil, false
}

func (d *Disk) read(name string, off, n int64, whole bool) ([]byte, error) {
	f, err := os.Open(filepath.Join(d.dir, name))
	if err != nil {
		d.drop(name)
		return nil, err
	}
	defer f.Close()
	if !whole {
		off = 0
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// Put stores a range (n = len(data)) or, with whole, the entire object.
// Failures only cost a later miss, so they are ignored.
func (d *Disk) Put(key string, off int64, data []byte, whole bool) {
	if int64(len(data)) > d.limit/4 {
		return // one entry must not flush the whole cache
	}
	name := entryName(key, off, int64(len(data)))
	if whole {
		name = entryName(key, 0, -1)
	}
	d.mu.Lock()
	_, have := d.items[name]
	d.mu.Unlock()
	if have {
		return
	}
	path := filepath.Join(d.dir, name)
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		return
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		_ = os.Remove(path + ".tmp")
		return
	}
	d.mu.Lock()
	if _, have := d.items[name]; !have {
		d.clock++
		d.items[name] = &diskItem{size: int64(len(data)), used: d.clock}
		d.used += int64(len(data))
	}
	d.evict()
	d.mu.Unlock()
}

func (d *Disk) drop(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if it, ok := d.items[name]; ok {
		d.used -= it.size
		delete(d.items, name)
	}
}

// evict removes least recently used entries until the cache fits; d.mu
// is held.
func (d *Disk) evict() {
	if d.used <= d.limit {
		return
	}
	names := make([]string, 0, len(d.items))
	for n := range d.items {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(d.items[a].used, d.items[b].used) })
	for _, n := range names {
		if d.used <= d.limit*9/10 { // leave room, so eviction is not per Put
			break
		}
		_ = os.Remove(filepath.Join(d.dir, n))
		d.used -= d.items[n].size
		delete(d.items, n)
	}
}
