//go:build !js

package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// osFiles is a dataset's storage in its directory (FORMAT.md).
type osFiles struct {
	dir, walDir, blockDir string
	seg                   walFile
	// segSize is the current segment's length as written; segDurable the
	// length through the last acknowledged record. They differ only
	// while a group is being written, or after a failed write whose
	// truncation back to segDurable has not succeeded yet (cutPending).
	segSize, segDurable int64
	cutPending          bool
	// wrapSeg lets tests inject write and sync failures (a full disk).
	wrapSeg func(walFile) walFile
	// segNum is the current segment; atomic because the flusher's
	// walRemoveThrough reads it while the committer rotates.
	segNum     atomic.Uint64
	segRecords int // records in the current segment
	// durableRecords is segRecords through the last acknowledged group.
	durableRecords int
	syncs          int // WAL fsyncs so far (tests check group commit)
	frame          []byte
	noSync         bool
	// manifest lists the block files (local storage only; nil when the
	// blocks live in an object store, whose catalog lists them).
	manifest *blockManifest
}

func (f *osFiles) blockPath(id uint64) string {
	return filepath.Join(f.blockDir, fmt.Sprintf("%016x.blk", id))
}

func segName(n uint64) string { return fmt.Sprintf("%020d.wal", n) }

func (f *osFiles) walWrite(payloads [][]byte, firstSeq uint64) error {
	if f.seg == nil { // open found the disk full
		if err := f.startSegment(f.segNum.Load()); err != nil {
			return err
		}
	}
	if err := f.cutBack(); err != nil {
		return err
	}
	b := f.frame[:0]
	var err error
	write := func(p []byte) {
		if err == nil && len(p) > 0 {
			var n int
			n, err = f.seg.Write(p)
			f.segSize += int64(n)
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
	if cap(b) <= 4*walDirectWrite {
		f.frame = b // reuse, unless one big group would pin memory
	} else {
		f.frame = nil
	}
	if err != nil {
		return f.failed(err)
	}
	f.segRecords += len(payloads)
	if f.noSync {
		f.segDurable, f.durableRecords = f.segSize, f.segRecords
	}
	return nil
}

// failed undoes a group whose write or sync failed: nothing of it was
// acknowledged, so it is cut off the segment (FORMAT.md, "WAL"); the
// error says whether the disk is full.
func (f *osFiles) failed(err error) error {
	f.cutPending = true
	f.segRecords = f.durableRecords
	if cerr := f.cutBack(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return classifyIOError(err)
}

// cutBack truncates the segment to its last acknowledged record when a
// failed write left more, and makes that durable. It is retried before
// every write, so appends resume by themselves once the disk has space.
func (f *osFiles) cutBack() error {
	if !f.cutPending {
		return nil
	}
	err := f.seg.Truncate(f.segDurable)
	if err == nil && !f.noSync {
		err = f.seg.Sync()
	}
	if err != nil {
		return classifyIOError(fmt.Errorf("undoing a failed WAL write: %w", err))
	}
	f.segSize, f.cutPending = f.segDurable, false
	return nil
}

// classifyIOError marks a full disk with ErrNoSpace.
func classifyIOError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}

// walDirectWrite is the payload size from which walWrite writes a payload
// with its own write call instead of copying it.
const walDirectWrite = 256 << 10

func (f *osFiles) walSync() error {
	f.syncs++
	if err := f.seg.Sync(); err != nil {
		return f.failed(err)
	}
	f.segDurable = f.segSize
	f.durableRecords = f.segRecords
	return nil
}

// startSegment creates segment n with its header and makes it durable.
// On failure (a full disk) the file is removed again, so the current
// segment stays the last one and no empty or headless segment is left.
func (f *osFiles) startSegment(n uint64) error {
	path := filepath.Join(f.walDir, segName(n))
	file, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return classifyIOError(err)
	}
	var s walFile = file
	if f.wrapSeg != nil {
		s = f.wrapSeg(s)
	}
	_, err = s.Write(walHeader())
	if err == nil && !f.noSync {
		if err = s.Sync(); err == nil {
			err = syncDir(f.walDir)
		}
	}
	if err != nil {
		s.Close()
		_ = os.Remove(path)
		return classifyIOError(err)
	}
	f.seg, f.segRecords, f.durableRecords = s, 0, 0
	f.segSize, f.segDurable, f.cutPending = walHeaderLen, walHeaderLen, false
	f.segNum.Store(n)
	return nil
}

func (f *osFiles) walRotate() (uint64, error) {
	if err := f.cutBack(); err != nil {
		return 0, err // never seal a segment that ends in a failed write
	}
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
	// Parsing read the header and, for the index's CRC, every page of
	// the index (term filters: 6 MB a block of 1M events, 60 MB of RSS
	// at 10M before any query). They leave the resident set; a query
	// that reads a filter faults its pages back from the page cache
	// (issue 29).
	dropPages(data)
	runtime.AddCleanup(p, func(m *mapping) { m.release() }, m)
	return p, nil
}

// writeBlocks is writeBlock for a flush's blocks, listing them in the
// manifest with one rewrite: the files in order (stopping at the first
// failure), then the manifest, then the mappings. It returns the durable
// prefix (objFiles has its own, for object storage).
func (f *osFiles) writeBlocks(ids []uint64, data [][]byte) ([]*blockPart, error) {
	var err error
	n := 0
	for ; n < len(ids); n++ {
		if err = writeFileDurable(f.blockPath(ids[n]), data[n], !f.noSync); err != nil {
			break
		}
	}
	if f.manifest != nil && n > 0 {
		sizes := make([]int64, n)
		for i := range sizes {
			sizes[i] = int64(len(data[i]))
		}
		if merr := f.manifest.setAll(ids[:n], sizes); merr != nil {
			for _, id := range ids[:n] {
				_ = os.Remove(f.blockPath(id)) // unlisted, they would be adopted at the next open; the flush retries
			}
			return nil, fmt.Errorf("store: listing blocks in the block manifest: %w", merr)
		}
	}
	out := make([]*blockPart, 0, n)
	for _, id := range ids[:n] {
		p, merr := mapBlock(id, f.blockPath(id))
		if merr != nil {
			return out, merr
		}
		out = append(out, p)
	}
	return out, err
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
	f = &osFiles{dir: final, walDir: filepath.Join(final, "wal"), blockDir: filepath.Join(final, "blocks"), noSync: opts.NoSync, manifest: m, wrapSeg: opts.wrapWAL}
	if err := f.startSegment(1); err != nil {
		return nil, err
	}
	return f, nil
}
