package store

import (
	"fmt"
	"slices"
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

// persist makes every heap block durable, then removes the WAL segments
// up to sealed. Several heap blocks (one per SealRows) are merged into one
// file, so a flush writes one well-compressed block instead of leaving the
// merge to compaction; a single one is written as is.
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
	if len(heap) > 0 {
		nb, err := d.persistBlocks(heap, before)
		if err != nil {
			return err // the WAL still holds these rows
		}
		d.swapHeap(heap, nb)
		if nb != nil && nb.idx.minTime < before { // trimmed while on the heap
			select {
			case d.trimq <- struct{}{}:
			default:
			}
		}
	}
	if sealed > 0 {
		if err := d.files.walRemoveThrough(sealed); err != nil {
			d.opts.Logf("store: dataset %s: removing flushed WAL segments: %v", d.name, err)
		}
	}
	return nil
}

// persistBlocks writes heap blocks as one durable block (nil when trim
// left no rows).
func (d *Dataset) persistBlocks(heap []*blockPart, keepFrom int64) (*blockPart, error) {
	if len(heap) == 1 {
		nb, err := d.files.writeBlock(heap[0].id, heap[0].data)
		if nb != nil {
			nb.durable = true
		}
		return nb, err
	}
	parts := make([]Part, len(heap))
	meta := blockMeta{}
	for i, b := range heap {
		parts[i] = b
		meta.walSeqMax = max(meta.walSeqMax, b.idx.walSeqMax)
		meta.inputBytes += b.idx.inputBytes
	}
	cs, err := mergeParts(parts, keepFrom)
	if err != nil || cs.n == 0 {
		return nil, err
	}
	return d.buildBlock(cs, meta)
}

// swapHeap replaces the heap blocks by their durable successor.
func (d *Dataset) swapHeap(heap []*blockPart, nb *blockPart) {
	d.mu.Lock()
	kept := d.blocks[:0:0]
	for _, b := range d.blocks {
		if !slices.Contains(heap, b) {
			kept = append(kept, b)
		}
	}
	if nb != nil {
		kept = append(kept, nb)
	}
	slices.SortFunc(kept, func(a, b *blockPart) int { return cmpInt(int64(a.id), int64(b.id)) })
	d.blocks = kept
	d.mu.Unlock()
	for _, b := range heap {
		b.unref()
	}
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
