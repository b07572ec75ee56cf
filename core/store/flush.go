package store

import (
	"fmt"
	"sync"
)

// flushLoop turns handed-over batches into blocks, one job at a time and
// in seq order. A final job's blocks are then made durable by persistLoop,
// so the next batches are encoded while the last ones are written or
// uploaded (an upload's latency would otherwise hold the flusher, and
// through backpressure the appends). A failed job's batches are carried
// into the next.
func (d *Dataset) flushLoop() {
	defer d.wg.Done()
	var persistq chan *flushJob // started with the first final job
	var persisted sync.WaitGroup
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
				if persistq == nil {
					persistq = make(chan *flushJob, 1)
					persisted.Add(1)
					go d.persistLoop(persistq, &persisted)
				}
				persistq <- job
				continue
			}
		}
		if job.done != nil {
			job.done <- err
		}
	}
	if persistq != nil {
		close(persistq)
		persisted.Wait()
	}
}

// persistLoop writes heap blocks to files in id (and so seq) order, one
// final job at a time: a durable block with walSeqMax X exists only once
// every batch below X is durable too, so the recovery watermark never
// skips an unflushed record.
func (d *Dataset) persistLoop(jobs <-chan *flushJob, done *sync.WaitGroup) {
	defer done.Done()
	for job := range jobs {
		err := d.persist(job.sealed)
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
		blk, err = d.encodeHeapBlock(cs, blockMeta{walSeqMax: maxSeq, inputBytes: bytes, terms: !d.opts.NoSealTermFilters})
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
// up to sealed. Each heap block is written as it is, so a row is encoded
// once on its way to disk (when its batch was sealed); merging them into
// bigger blocks is left to compaction, which does it when the dataset is
// idle. Blocks are written in id (and so seq) order, so a failure leaves
// only a durable prefix.
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
		written, err := d.persistBlocks(heap)
		d.swapHeap(heap[:len(written)], written)
		if err != nil {
			return err // the WAL still holds the rest
		}
		for _, nb := range written {
			if nb.idx.minTime < before { // trimmed while on the heap
				select {
				case d.trimq <- struct{}{}:
				default:
				}
				break
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

// batchWriter is dsFiles that makes several blocks durable for less than
// one at a time (object storage: parallel uploads, one catalog version).
// On failure it returns the durable prefix and the error.
type batchWriter interface {
	writeBlocks(ids []uint64, data [][]byte) ([]*blockPart, error)
}

// persistBlocks writes heap blocks to their files in order and returns
// the durable ones, stopping at the first failure.
func (d *Dataset) persistBlocks(heap []*blockPart) ([]*blockPart, error) {
	if bw, ok := d.files.(batchWriter); ok {
		ids, data := make([]uint64, len(heap)), make([][]byte, len(heap))
		for i, b := range heap {
			ids[i], data[i] = b.id, b.data
		}
		out, err := bw.writeBlocks(ids, data)
		for _, nb := range out {
			nb.durable = true
		}
		return out, err
	}
	out := make([]*blockPart, 0, len(heap))
	for _, b := range heap {
		nb, err := d.files.writeBlock(b.id, b.data)
		if err != nil {
			return out, err
		}
		nb.durable = true
		out = append(out, nb)
	}
	return out, nil
}

// swapHeap replaces heap blocks by their durable copies. Their ids stay
// (the copies are the same blocks), so no file is removed.
func (d *Dataset) swapHeap(heap, durable []*blockPart) {
	d.replaceBlocks(heap, durable)
	unrefAll(heap)
}

// encodeHeapBlock encodes cs under a fresh id into a block on the heap.
func (d *Dataset) encodeHeapBlock(cs *colSet, meta blockMeta) (*blockPart, error) {
	d.mu.Lock()
	id := d.nextBlock
	d.nextBlock++
	d.mu.Unlock()
	meta.created = d.opts.Now().UnixNano()
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
