//go:build !js

package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// osFiles is a dataset's storage in its directory (FORMAT.md).
type osFiles struct {
	dir, walDir, blockDir string
	seg                   *os.File
	// segNum is the current segment; atomic because the flusher's
	// walRemoveThrough reads it while the committer rotates.
	segNum     atomic.Uint64
	segRecords int // records in the current segment
	syncs      int // WAL fsyncs so far (tests check group commit)
	frame      []byte
	noSync     bool
	// manifest lists the block files (local storage only; nil when the
	// blocks live in an object store, whose catalog lists them).
	manifest *blockManifest
}

func (f *osFiles) blockPath(id uint64) string {
	return filepath.Join(f.blockDir, fmt.Sprintf("%016x.blk", id))
}

func segName(n uint64) string { return fmt.Sprintf("%020d.wal", n) }

func (f *osFiles) walWrite(payloads [][]byte, firstSeq uint64) error {
	b := f.frame[:0]
	var err error
	write := func(p []byte) {
		if err == nil && len(p) > 0 {
			_, err = f.seg.Write(p)
		}
	}
	for i, p := range payloads {
		seq := firstSeq + uint64(i)
		if len(p) < walDirectWrite {
			b = appendFrame(b, seq, p)
			continue
		}
		// A large payload is written where it is rather than copied into
		// the frame buffer: ingest bodies make payloads of megabytes.
		write(appendFrameHeader(b, seq, p))
		write(p)
		b = b[:0]
	}
	write(b)
	f.segRecords += len(payloads)
	if cap(b) <= 4*walDirectWrite {
		f.frame = b // reuse, unless one big group would pin memory
	} else {
		f.frame = nil
	}
	return err
}

// walDirectWrite is the payload size from which walWrite writes a payload
// with its own write call instead of copying it.
const walDirectWrite = 256 << 10

func (f *osFiles) walSync() error {
	f.syncs++
	return f.seg.Sync()
}

// startSegment creates segment n with its header and makes it durable.
func (f *osFiles) startSegment(n uint64) error {
	path := filepath.Join(f.walDir, segName(n))
	s, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := s.Write(walHeader()); err != nil {
		s.Close()
		return err
	}
	if !f.noSync {
		if err := s.Sync(); err != nil {
			s.Close()
			return err
		}
		if err := syncDir(f.walDir); err != nil {
			s.Close()
			return err
		}
	}
	f.seg, f.segRecords = s, 0
	f.segNum.Store(n)
	return nil
}

func (f *osFiles) walRotate() (uint64, error) {
	if f.segRecords == 0 { // nothing to seal: every earlier segment already is
		return f.segNum.Load() - 1, nil
	}
	old, n := f.seg, f.segNum.Load()
	if err := f.startSegment(n + 1); err != nil {
		return 0, err
	}
	return n, old.Close()
}

func (f *osFiles) walRemoveThrough(seg uint64) error {
	segs, err := listSegments(f.walDir)
	if err != nil {
		return err
	}
	for _, n := range segs {
		if n <= seg && n != f.segNum.Load() {
			if err := os.Remove(filepath.Join(f.walDir, segName(n))); err != nil {
				return err
			}
		}
	}
	return nil
}

// listSegments returns the WAL segment numbers in dir, ascending.
func listSegments(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".wal")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(name, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out, nil // ReadDir sorts by name; names are zero-padded
}

func (f *osFiles) writeBlock(id uint64, data []byte) (*blockPart, error) {
	path := f.blockPath(id)
	if err := writeFileDurable(path, data, !f.noSync); err != nil {
		return nil, err
	}
	if f.manifest != nil {
		if err := f.manifest.set(id, int64(len(data))); err != nil {
			_ = os.Remove(path) // unlisted, it would be adopted at the next open; the caller retries
			return nil, fmt.Errorf("store: listing block %016x in the block manifest: %w", id, err)
		}
	}
	return mapBlock(id, path)
}

// mapBlock maps a block file and parses its index.
//
// The mapping is released by whichever comes first: the part's reference
// count reaching zero (every Snapshot released) or the garbage collector
// finding the part unreachable (a Snapshot never released). The second is
// safe because nothing can read a part nobody references, and decoded
// vectors never point into the mapping; mapping.release runs once.
func mapBlock(id uint64, path string) (*blockPart, error) {
	data, unmap, err := mmapFile(path)
	if err != nil {
		return nil, err
	}
	m := &mapping{unmap: unmap}
	p, err := newBlockPart(id, path, data, m.release)
	if err != nil {
		m.release()
		return nil, err
	}
	p.mapped = m
	runtime.AddCleanup(p, func(m *mapping) { m.release() }, m)
	return p, nil
}

// removeBlock drops the block from the manifest before unlinking it, so
// the manifest never lists a block that was removed on purpose.
func (f *osFiles) removeBlock(id uint64) error {
	if f.manifest != nil {
		if err := f.manifest.set(id, -1); err != nil {
			return err
		}
	}
	return os.Remove(f.blockPath(id))
}

func (f *osFiles) writeMeta(m dsMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return writeFileDurable(filepath.Join(f.dir, "meta.json"), b, !f.noSync)
}

func (f *osFiles) close() error {
	if f.seg == nil {
		return nil
	}
	err := f.seg.Close()
	f.seg = nil
	return err
}

// destroy renames the directory out of the namespace first, so a crash
// mid-removal never leaves a half dataset under its name.
func (f *osFiles) destroy() error {
	parent := filepath.Dir(f.dir)
	grave := filepath.Join(parent, fmt.Sprintf(".%s.deleted-%d", filepath.Base(f.dir), time.Now().UnixNano()))
	if err := os.Rename(f.dir, grave); err != nil {
		return err
	}
	if err := syncDir(parent); err != nil {
		return err
	}
	return os.RemoveAll(grave)
}

// writeFileDurable writes path via a temp file, fsync and rename, then
// fsyncs the directory, so path is either absent or complete.
func writeFileDurable(path string, data []byte, sync bool) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil && sync {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// createDatasetDir prepares a dataset directory under a temporary name
// and renames it into place.
func createDatasetDir(root, name string, created time.Time, opts Options) (dsFiles, error) {
	tmp := filepath.Join(root, "."+name+".tmp")
	_ = os.RemoveAll(tmp)
	for _, sub := range []string{"wal", "blocks"} {
		if err := os.MkdirAll(filepath.Join(tmp, sub), 0o755); err != nil {
			return nil, err
		}
	}
	f := &osFiles{dir: tmp, noSync: opts.NoSync}
	if err := f.writeMeta(dsMeta{Created: created}); err != nil {
		return nil, err
	}
	m := &blockManifest{path: filepath.Join(tmp, manifestName), sync: !opts.NoSync, blocks: map[uint64]int64{}}
	if err := m.write(); err != nil {
		return nil, err
	}
	final := filepath.Join(root, name)
	if err := os.Rename(tmp, final); err != nil {
		return nil, err
	}
	if !opts.NoSync {
		if err := syncDir(root); err != nil {
			return nil, err
		}
	}
	m.path = filepath.Join(final, manifestName)
	f = &osFiles{dir: final, walDir: filepath.Join(final, "wal"), blockDir: filepath.Join(final, "blocks"), noSync: opts.NoSync, manifest: m}
	if err := f.startSegment(1); err != nil {
		return nil, err
	}
	return f, nil
}
