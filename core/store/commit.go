package store

import (
	"fmt"
	"slices"
	"time"
)

// ctlReq asks the committer to flush (durably) or to stop.
type ctlReq struct {
	stop  bool
	flush bool // with stop: flush the buffer first
	done  chan error
}

// flushJob hands buffered batches (seq <= maxSeq) to the flusher, which
// encodes them into a block. A final job then also writes every block
// still on the heap to its file and removes the WAL segments up to sealed
// (0: none).
type flushJob struct {
	parts  []Part
	maxSeq uint64
	final  bool
	sealed uint64
	bytes  int64
	done   chan error
}

// maxGroup bounds how many appends share one WAL write and fsync.
const maxGroup = 4096

// commitLoop is the dataset's single writer: it batches queued appends
// into one WAL write and one fsync (group commit), publishes them to the
// buffer, and decides when to flush.
func (d *Dataset) commitLoop() {
	defer d.wg.Done()
	tick := time.NewTicker(min(d.opts.FlushInterval/4+time.Millisecond, time.Second))
	defer tick.Stop()
	group := make([]*appendReq, 0, 64)
	for {
		select {
		case req := <-d.reqs:
			group = append(group[:0], req)
		drain:
			for len(group) < maxGroup {
				select {
				case r := <-d.reqs:
					group = append(group, r)
				default:
					break drain
				}
			}
			d.commit(group)
		case c := <-d.ctl:
			if c.stop {
				d.finish(c)
				return
			}
			d.startFlush(c.done, true)
		case <-tick.C:
			if d.flushDue(d.opts.Now()) {
				d.startFlush(nil, true)
			}
		}
	}
}

// commit makes a group durable, then visible, then acknowledges it.
func (d *Dataset) commit(group []*appendReq) {
	first := d.nextSeq
	err := d.logGroup(group, first)
	if err != nil {
		for _, r := range group {
			r.done <- appendResp{err: err}
		}
		return
	}
	d.nextSeq += uint64(len(group))
	now := d.opts.Now()
	d.lastAppend.Store(now.UnixNano())
	d.mu.Lock()
	for i, r := range group {
		seq := first + uint64(i)
		d.buf = append(d.buf, &bufBatch{seq: seq, rows: r.rows, part: newBufPart(seq, r.rows), at: now, bytes: r.bytes})
		d.pendingRows += r.rows.N
		d.dirtyRows += r.rows.N
		d.bufBytes += r.bytes
	}
	if d.dirtySince.IsZero() {
		d.dirtySince = now
	}
	d.walRecords += int64(len(group))
	if d.pub != nil {
		recs := make([]tailRec, len(group))
		for i, r := range group {
			recs[i] = tailRec{seq: first + uint64(i), payload: r.payload, rows: r.rows.N}
		}
		d.pub.add(recs...)
	}
	res := AppendResult{WALLength: d.walRecords}
	full := d.dirtyRows >= d.opts.FlushRows
	seal := d.pendingRows >= d.opts.SealRows
	d.mu.Unlock()
	for _, r := range group {
		r.done <- appendResp{res: res}
	}
	// Both block while the flusher is behind: backpressure.
	if full {
		d.startFlush(nil, true)
	} else if seal {
		d.startFlush(nil, false)
	}
}

// logGroup writes the group to the WAL and syncs. A failed write or sync
// leaves nothing of the group in the log (the files undo it), so the
// group is refused and the next one is tried afresh: a full disk refuses
// appends only while it is full.
func (d *Dataset) logGroup(group []*appendReq, first uint64) error {
	if d.files == nil {
		return nil
	}
	payloads := make([][]byte, len(group))
	for i, r := range group {
		payloads[i] = r.payload
	}
	err := d.files.walWrite(payloads, first)
	if err == nil && !d.opts.NoSync {
		err = d.files.walSync()
	}
	if err != nil {
		err = fmt.Errorf("store: dataset %s: WAL write failed, nothing of this append was stored: %w", d.name, err)
	}
	return err
}

// flushDue reports whether the oldest data not yet durable in a block is
// older than FlushInterval, or the dataset has had no append for
// IdleFlush (an ingest that stopped should not leave its rows in the WAL).
func (d *Dataset) flushDue(now time.Time) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.dirtySince.IsZero() {
		return false
	}
	idle := now.UnixNano()-d.lastAppend.Load() >= int64(d.opts.IdleFlush)
	return idle || now.Sub(d.dirtySince) >= d.opts.FlushInterval
}

// startFlush hands every batch not yet handed over to the flusher. A final
// flush first seals the WAL segment they sit in; done (if any) receives
// the result once those batches (and all handed before) are durable
// blocks.
func (d *Dataset) startFlush(done chan error, final bool) {
	job := &flushJob{done: done, final: final}
	d.mu.Lock()
	if final {
		d.dirtyRows, d.dirtySince = 0, time.Time{}
	}
	for _, b := range d.buf {
		if b.seq > d.handedSeq {
			job.parts = append(job.parts, b.part)
			job.maxSeq = b.seq
			job.bytes += b.bytes
		}
	}
	if len(job.parts) > 0 {
		d.handedSeq = job.maxSeq
		d.pendingRows = 0
	}
	d.mu.Unlock()
	if final && d.files != nil {
		seg, err := d.files.walRotate()
		if err != nil {
			// The current segment stays in use and is sealed by a later
			// flush; until then its records stay in the WAL, which is safe.
			d.opts.Logf("store: dataset %s: starting a WAL segment: %v", d.name, err)
		} else {
			job.sealed = seg
		}
	}
	d.flushq <- job
}

// finish runs the committer's last steps: an optional final flush, then
// stopping the flusher and maintenance goroutines.
func (d *Dataset) finish(c ctlReq) {
	var err error
	if c.flush {
		done := make(chan error, 1)
		d.startFlush(done, true)
		err = <-done
	}
	close(d.flushq)
	close(d.stop)
	c.done <- err
}

// Flush forces every buffered batch into a block and waits for it.
func (d *Dataset) Flush() error {
	d.life.RLock()
	defer d.life.RUnlock()
	if d.closed {
		return ErrClosed
	}
	done := make(chan error, 1)
	d.ctl <- ctlReq{flush: true, done: done}
	return <-done
}

// shutdown stops the dataset's goroutines (flushing first when asked) and
// drops its references to its blocks.
func (d *Dataset) shutdown(flush bool) error {
	d.life.Lock()
	if d.closed {
		d.life.Unlock()
		return nil
	}
	d.closed = true
	d.life.Unlock()
	done := make(chan error, 1)
	d.ctl <- ctlReq{stop: true, flush: flush, done: done}
	err := <-done
	d.wg.Wait()
	d.mu.Lock()
	for _, b := range slices.Concat(d.blocks, d.foreign) {
		b.unref()
	}
	d.blocks, d.foreign = nil, nil
	d.mu.Unlock()
	if d.files != nil {
		if cerr := d.files.close(); err == nil {
			err = cerr
		}
	}
	return err
}
