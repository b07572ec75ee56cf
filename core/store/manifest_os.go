//go:build !js

package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
)

// manifestName is the block manifest's file in a dataset directory
// (FORMAT.md, "Block manifest").
const manifestName = "manifest.json"

// blockManifest is the list of a local dataset's block files and their
// sizes, rewritten whole (temp, fsync, rename) after a block is written
// and before one is unlinked, so a block file that disappears or shrinks
// while the server is stopped is noticed at the next open.
type blockManifest struct {
	path string
	sync bool
	// mu serialises the flusher's and maintenance's rewrites.
	mu     sync.Mutex
	blocks map[uint64]int64
}

type manifestJSON struct {
	Version int             `json:"version"`
	Blocks  []manifestEntry `json:"blocks"`
}

type manifestEntry struct {
	ID   string `json:"id"`
	Size int64  `json:"size"`
}

// readManifest reads a dataset's manifest: its blocks, or ok false when
// there is none (a directory written before manifests) or it does not
// parse (err says why).
func readManifest(dir string) (blocks map[uint64]int64, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var m manifestJSON
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, false, err
	}
	if m.Version != 1 {
		return nil, false, fmt.Errorf("unsupported manifest version %d", m.Version)
	}
	blocks = make(map[uint64]int64, len(m.Blocks))
	for _, e := range m.Blocks {
		id, err := strconv.ParseUint(e.ID, 16, 64)
		if err != nil {
			return nil, false, fmt.Errorf("block id %q: %v", e.ID, err)
		}
		blocks[id] = e.Size
	}
	return blocks, true, nil
}

// set records a block (size >= 0) or drops it (size < 0) and rewrites
// the file; on failure the change is undone, so memory and disk agree.
func (m *blockManifest) set(id uint64, size int64) error {
	return m.setAll([]uint64{id}, []int64{size})
}

// setAll is set for several blocks with one rewrite (a flush's blocks).
func (m *blockManifest) setAll(ids []uint64, sizes []int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	before := make(map[uint64]int64, len(ids))
	for i, id := range ids {
		if old, had := m.blocks[id]; had {
			before[id] = old
		}
		if sizes[i] < 0 {
			delete(m.blocks, id)
		} else {
			m.blocks[id] = sizes[i]
		}
	}
	err := m.writeLocked()
	if err != nil {
		for _, id := range ids {
			if old, had := before[id]; had {
				m.blocks[id] = old
			} else {
				delete(m.blocks, id)
			}
		}
	}
	return err
}

// write rewrites the file from memory.
func (m *blockManifest) write() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writeLocked()
}

func (m *blockManifest) writeLocked() error {
	ids := make([]uint64, 0, len(m.blocks))
	for id := range m.blocks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := manifestJSON{Version: 1, Blocks: make([]manifestEntry, 0, len(ids))}
	for _, id := range ids {
		out.Blocks = append(out.Blocks, manifestEntry{ID: fmt.Sprintf("%016x", id), Size: m.blocks[id]})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return writeFileDurable(m.path, b, m.sync)
}
