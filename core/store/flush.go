package store

import (
	"fmt"
	"time"
)

// flushLoop turns handed-over batches into blocks, one job at a time and
// in seq order, and on final jobs writes heap blocks to files in id (and
// so seq) order: a durable block with walSeqMax X exists only once every
// batch below X is durable too, so the recovery watermark never skips an
// unflushed record. A failed job's batches are carried into the next.
func (d *Dataset) flushLoop() {
	defer d.wg.Done()
	var carry []Part
	var carryBytes int64
	var carrySeq uint64
	for job := range d.flushq {
		parts := append(carry, job.parts...)
		bytes := carryBytes + job.bytes
		maxSeq := max(carrySeq, job.maxSeq)
		err := d.seal(parts, maxSeq, bytes)
		if err != nil {
			carry, carryBytes, carrySeq = parts, bytes, maxSeq
			d.opts.Logf("store: dataset %s: flush failed (will retry with the next): %v", d.name, err)
		} else {
			carry, carryBytes, carrySeq = nil, 0, 0
			if job.final && d.files != nil {
				err = d.persist(job.sealed)
			}
		}
		if job.done != nil {
			job.done <- err
		}
	}
}

// seal encodes parts (buffered batches up to maxSeq) into one block
// sorted by _time and swaps it in for them. In memory mode that block is
// final; in file mode it stays on the heap until persist.
func (d *Dataset) seal(parts []Part, maxSeq uint64, bytes int64) error {
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
		blk, err = d.encodeHeapBlock(cs, blockMeta{walSeqMax: maxSeq, inputBytes: bytes})
		if err != nil {
			return err
		}
		blk.durable = d.files == nil
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
	return nil
}

// persist writes every heap block to its file (in id order), swaps in the
// mapped file, then removes the WAL segments up to sealed.
func (d *Dataset) persist(sealed uint64) error {
	d.mu.RLock()
	var heap []*blockPart
	for _, b := range d.blocks {
		if !b.durable {
			heap = append(heap, b)
		}
	}
	before := d.trimBefore
	d.mu.RUnlock()
	retrim := false
	for _, b := range heap {
		nb, err := d.files.writeBlock(b.id, b.data)
		if err != nil {
			return err // the WAL still holds these rows
		}
		nb.durable = true
		d.replaceBlock(b, nb)
		retrim = retrim || nb.idx.minTime < before
	}
	if sealed > 0 {
		if err := d.files.walRemoveThrough(sealed); err != nil {
			d.opts.Logf("store: dataset %s: removing flushed WAL segments: %v", d.name, err)
		}
	}
	if retrim { // rows trimmed while they sat in a heap block
		select {
		case d.trimq <- struct{}{}:
		default:
		}
	}
	return nil
}

// replaceBlock swaps old for nb in the block list (same position).
func (d *Dataset) replaceBlock(old, nb *blockPart) {
	d.mu.Lock()
	for i, b := range d.blocks {
		if b == old {
			d.blocks[i] = nb
		}
	}
	d.mu.Unlock()
	old.unref()
}

// encodeHeapBlock encodes cs under a fresh id into a block on the heap.
func (d *Dataset) encodeHeapBlock(cs *colSet, meta blockMeta) (*blockPart, error) {
	d.mu.Lock()
	id := d.nextBlock
	d.nextBlock++
	d.mu.Unlock()
	meta.created = time.Now().UnixNano()
	data, err := encodeBlock(cs, meta)
	if err != nil {
		return nil, err
	}
	return newBlockPart(id, fmt.Sprintf("memory:%s/%016x", d.name, id), data, nil)
}

// buildBlock encodes cs under a fresh id and makes it durable (a file, or
// the heap in memory mode). Compaction and trim use it.
func (d *Dataset) buildBlock(cs *colSet, meta blockMeta) (*blockPart, error) {
	blk, err := d.encodeHeapBlock(cs, meta)
	if err != nil || d.files == nil {
		if blk != nil {
			blk.durable = true
		}
		return blk, err
	}
	nb, err := d.files.writeBlock(blk.id, blk.data)
	if err != nil {
		return nil, err
	}
	nb.durable = true
	return nb, nil
}
