package store

import (
	"fmt"
	"time"
)

// flushLoop turns handed-over batches into blocks, one job at a time and
// in seq order: a block with walSeqMax X is installed only after every
// batch below X is in a block, so the recovery watermark never skips an
// unflushed record. A failed job's batches are carried into the next.
func (d *Dataset) flushLoop() {
	defer d.wg.Done()
	var carry []Part
	var carryBytes int64
	for job := range d.flushq {
		parts := append(carry, job.parts...)
		bytes := carryBytes + job.bytes
		err := d.runFlush(parts, job.maxSeq, job.sealed, bytes)
		if err != nil {
			carry, carryBytes = parts, bytes
			d.opts.Logf("store: dataset %s: flush failed (will retry with the next): %v", d.name, err)
		} else {
			carry, carryBytes = nil, 0
		}
		if job.done != nil {
			job.done <- err
		}
	}
}

// runFlush writes parts (buffered batches up to maxSeq) as one block
// sorted by _time, swaps it in for them, then drops the WAL segments it
// covers.
func (d *Dataset) runFlush(parts []Part, maxSeq, sealed uint64, bytes int64) error {
	if len(parts) == 0 {
		return nil
	}
	d.mu.RLock()
	keepFrom := d.trimBefore
	d.mu.RUnlock()
	cs, err := mergeParts(parts, keepFrom)
	if err != nil {
		return err
	}
	var blk *blockPart
	if cs.n > 0 {
		blk, err = d.buildBlock(cs, blockMeta{walSeqMax: maxSeq, inputBytes: bytes})
		if err != nil {
			return err
		}
	}
	d.mu.Lock()
	if blk != nil {
		d.blocks = append(d.blocks, blk)
	}
	kept := d.buf[:0]
	for _, b := range d.buf {
		if b.seq > maxSeq {
			kept = append(kept, b)
		} else {
			d.walRecords--
			d.bufBytes -= b.bytes
		}
	}
	clear(d.buf[len(kept):])
	d.buf = kept
	d.mu.Unlock()
	if d.files != nil && sealed > 0 {
		if err := d.files.walRemoveThrough(sealed); err != nil {
			d.opts.Logf("store: dataset %s: removing flushed WAL segments: %v", d.name, err)
		}
	}
	return nil
}

// buildBlock encodes cs under a fresh id and stores it (file or heap).
func (d *Dataset) buildBlock(cs *colSet, meta blockMeta) (*blockPart, error) {
	d.mu.Lock()
	id := d.nextBlock
	d.nextBlock++
	d.mu.Unlock()
	meta.created = time.Now().UnixNano()
	data, err := encodeBlock(cs, meta)
	if err != nil {
		return nil, err
	}
	if d.files != nil {
		return d.files.writeBlock(id, data)
	}
	return newBlockPart(id, fmt.Sprintf("memory:%s/%016x", d.name, id), data, nil)
}
