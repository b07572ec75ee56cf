package store

import (
	"math/bits"
	"slices"
	"time"
)

// Compaction policy: blocks under smallBlockRows are merged, oldest data
// first, into blocks of up to maxMergeRows. A merge holds one decoded
// column of its inputs at a time, so its memory is bounded by
// maxMergeRows times the widest column, not by the whole block.
//
// A flush writes sealed blocks of SealRows rows as they are. Merging
// those re-encodes every row, which competes with ingest for the CPU, so
// a burst of appends is not slowed by its own compaction: while appends
// keep coming, a block is merged once it is a fragment (under half of
// SealRows, from interval flushes) or older than CompactAge (30 s by
// default). A live stream is never idle, and without the age rule its
// blocks would stay at SealRows rows, without term filters, for good.
// While appends come, a merge takes blocks of one size tier (mergeTier),
// so a block is rewritten a few times on its way to smallBlockRows, not
// once per fragment that lands beside it, and the next merge waits three
// times as long as the last one took: compaction takes a quarter of one
// core from a live ingest, its debt paid in full once the stream pauses.
// Once the dataset has been idle for CompactIdle (3 s by default),
// everything small is merged at once, so a dataset reaches its compact
// size seconds after an ingest stops. Every merge steps aside while
// queries run (querygate.go): that is when the fresh blocks are searched.
const (
	smallBlockRows = 256 << 10
	maxMergeRows   = 1 << 20
	minMergeBlocks = 4
)

// idle reports whether the dataset has had no append for CompactIdle.
func (d *Dataset) idle(now time.Time) bool {
	return now.UnixNano()-d.lastAppend.Load() >= int64(d.opts.CompactIdle)
}

// mergeable reports whether b is worth merging now.
func (d *Dataset) mergeable(b *blockPart, now time.Time, idle bool) bool {
	if !b.durable || b.Rows() >= smallBlockRows {
		return false
	}
	return idle || b.Rows() < d.opts.SealRows/2 || now.UnixNano()-b.idx.created >= int64(d.opts.CompactAge)
}

// mergeTier groups row counts within a factor of 8.
func mergeTier(rows int) int { return bits.Len(uint(rows)) / 3 }

// tierGroup picks, from candidates' row counts in time order, the indexes
// of the smallest tier with at least minMergeBlocks blocks, oldest first
// (pickCompaction caps the merge at maxMergeRows); nil for none.
func tierGroup(rows []int) []int {
	count := map[int]int{}
	best := -1
	for _, r := range rows {
		t := mergeTier(r)
		if count[t]++; count[t] >= minMergeBlocks && (best < 0 || t < best) {
			best = t
		}
	}
	if best < 0 {
		return nil
	}
	var group []int
	for i, r := range rows {
		if mergeTier(r) == best {
			group = append(group, i)
		}
	}
	return group
}

// maintLoop runs trim and compaction in the background, one at a time.
// Both build new blocks from old ones and swap them in under the lock, so
// Append and Snapshot never wait for them.
func (d *Dataset) maintLoop() {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.CompactInterval)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-d.trimq:
			d.runTrim()
		case <-t.C:
			d.compact()
		}
	}
}

// Trim deletes data with _time < before: at once from the buffer, in the
// background from blocks (whole blocks dropped, partly covered ones
// rewritten). The bound is persisted so a restart keeps honouring it.
func (d *Dataset) Trim(before int64) (bool, error) {
	if d.db.readOnly {
		return false, ErrReadOnly
	}
	d.life.RLock()
	defer d.life.RUnlock()
	if d.closed {
		return false, ErrClosed
	}
	d.mu.Lock()
	if d.trimBefore != 0 && before <= d.trimBefore { // 0: never trimmed, so a cut before 1970 still trims
		d.mu.Unlock()
		return false, nil
	}
	d.trimBefore = before
	if d.files != nil {
		if err := d.files.writeMeta(dsMeta{Created: d.created, TrimBefore: before}); err != nil {
			d.mu.Unlock()
			return false, err
		}
	}
	d.trimBuffer(before)
	d.mu.Unlock()
	select {
	case d.trimq <- struct{}{}:
	default: // a trim is already queued; it reads the newest bound
	}
	return true, nil
}

// trimBuffer replaces buffered batches by copies without the old rows.
// The flusher holds the old Parts but filters by trimBefore itself.
func (d *Dataset) trimBuffer(before int64) {
	kept := d.buf[:0]
	for _, b := range d.buf {
		if lo, _ := b.part.TimeRange(); lo >= before {
			kept = append(kept, b)
			continue
		}
		// Batches already handed to the flusher are replaced too: the
		// flusher filters by trimBefore itself and swaps by seq.
		nb := *b
		nb.rows = filterRows(b.rows, before)
		nb.part = newBufPart(b.seq, nb.rows)
		if b.seq > d.handedSeq {
			d.pendingRows -= b.rows.N - nb.rows.N
		}
		kept = append(kept, &nb)
	}
	d.buf = kept
}

// filterRows returns the rows of r with _time >= before.
func filterRows(r *Rows, before int64) *Rows {
	var sel []int32
	for i, t := range r.Time {
		if t >= before {
			sel = append(sel, int32(i))
		}
	}
	out := &Rows{N: len(sel), SysTime: r.SysTime, Keys: r.Keys, Time: make([]int64, len(sel))}
	for j, i := range sel {
		out.Time[j] = r.Time[i]
	}
	for _, c := range r.Cols {
		out.Cols = append(out.Cols, c.Gather(sel))
	}
	return out
}

// runTrim drops or rewrites every block holding rows older than the bound.
func (d *Dataset) runTrim() {
	d.mu.RLock()
	before := d.trimBefore
	var victims []*blockPart
	for _, b := range d.blocks {
		if lo, _ := b.TimeRange(); lo < before && b.durable && b.acquire() {
			victims = append(victims, b)
		}
	}
	d.mu.RUnlock()
	for _, b := range victims {
		var repl []*blockPart
		if _, hi := b.TimeRange(); hi >= before {
			nb, err := d.rewrite([]*blockPart{b}, before)
			if err != nil {
				d.opts.Logf("store: dataset %s: trim of %s: %v", d.name, b.ID(), err)
				b.unref()
				continue
			}
			if nb != nil {
				repl = append(repl, nb)
			}
		}
		d.swap([]*blockPart{b}, repl)
		b.unref()
	}
}

// compact merges runs of small blocks, oldest first. While appends keep
// coming it waits three times as long as each merge took before the
// next (yieldToIngest), so compaction takes at most a quarter of one
// core from ingest.
func (d *Dataset) compact() {
	if d.db.readOnly { // the ingest node compacts; this node only reads
		return
	}
	for {
		idle := d.idle(d.opts.Now())
		group := d.pickCompaction(idle)
		if group == nil {
			return
		}
		began := time.Now()
		d.mu.RLock()
		before := d.trimBefore
		d.mu.RUnlock()
		nb, err := d.rewrite(group, before)
		if err != nil {
			d.opts.Logf("store: dataset %s: compaction: %v", d.name, err)
			unrefAll(group)
			return
		}
		var repl []*blockPart
		if nb != nil {
			repl = append(repl, nb)
		}
		d.swap(group, repl)
		unrefAll(group)
		if !idle && !d.yieldToIngest(time.Duration(livePause)*time.Since(began)) {
			return
		}
	}
}

// livePause is how many times a merge's own length compaction waits
// after it while appends keep coming (a variable so a test can stretch
// the wait).
var livePause = 3

// yieldToIngest waits up to pause while the dataset stays live, so a live
// ingest keeps most of the CPU; it returns at once when the dataset goes
// idle (its backlog is merged without waiting out a pause set while the
// stream ran, which had a settled benchmark query 145 unmerged blocks),
// and false when the dataset is closing.
func (d *Dataset) yieldToIngest(pause time.Duration) bool {
	deadline := time.Now().Add(pause)
	for {
		left := time.Until(deadline)
		if left <= 0 || d.idle(d.opts.Now()) {
			return true
		}
		select {
		case <-d.stop:
			return false
		case <-time.After(min(left, 100*time.Millisecond)):
		}
	}
}

func unrefAll(bs []*blockPart) {
	for _, b := range bs {
		b.unref()
	}
}

// pickCompaction returns (acquired) small blocks to merge, ordered by min
// time, or nil when there is too little to gain.
func (d *Dataset) pickCompaction(idle bool) []*blockPart {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var small []*blockPart
	now := d.opts.Now()
	for _, b := range d.blocks {
		if d.mergeable(b, now, idle) {
			small = append(small, b)
		}
	}
	// A live dataset waits for minMergeBlocks, so a merge is worth its
	// CPU; an idle one merges every small block it has, as the package
	// promises: a flush that landed after the last merge otherwise left
	// two or three small blocks until the next ingest.
	if len(small) < minMergeBlocks && (!idle || len(small) < 2) {
		return nil
	}
	slices.SortFunc(small, func(a, b *blockPart) int { return cmpInt(a.idx.minTime, b.idx.minTime) })
	if !idle {
		rows := make([]int, len(small))
		for i, b := range small {
			rows[i] = b.Rows()
		}
		picked := tierGroup(rows)
		tiered := make([]*blockPart, len(picked))
		for i, k := range picked {
			tiered[i] = small[k]
		}
		small = tiered
	}
	var group []*blockPart
	rows := 0
	for _, b := range small {
		if rows+b.Rows() > maxMergeRows && len(group) >= 2 {
			break
		}
		if b.acquire() {
			group = append(group, b)
			rows += b.Rows()
		}
	}
	if len(group) < 2 {
		unrefAll(group)
		return nil
	}
	return group
}

// rewrite builds one block from olds without rows before keepFrom; nil
// when nothing is left. The new block lists olds as replaced. It runs in
// the background (compaction, trim), so it steps aside for queries.
func (d *Dataset) rewrite(olds []*blockPart, keepFrom int64) (*blockPart, error) {
	pacer := newMergePacer(&d.db.queries, d.stop)
	parts := make([]Part, len(olds))
	meta := blockMeta{terms: true}
	for i, b := range olds {
		parts[i] = b
		meta.walSeqMax = max(meta.walSeqMax, b.idx.walSeqMax)
		meta.replaced = append(meta.replaced, b.id)
		meta.inputBytes += b.idx.inputBytes
	}
	cs, err := mergeParts(parts, keepFrom)
	if err != nil || cs.n == 0 {
		return nil, err
	}
	if total := totalRows(olds); total > 0 && cs.n < total {
		meta.inputBytes = meta.inputBytes * int64(cs.n) / int64(total)
	}
	cs.pause = pacer.pause
	return d.buildBlock(cs, meta)
}

func totalRows(bs []*blockPart) int {
	n := 0
	for _, b := range bs {
		n += b.Rows()
	}
	return n
}

// swap replaces olds by news in the dataset (news already durable), then
// unlinks the old files and drops the dataset's references to them.
func (d *Dataset) swap(olds, news []*blockPart) {
	d.replaceBlocks(olds, news)
	for _, b := range olds {
		if d.files != nil {
			if err := d.files.removeBlock(b.id); err != nil {
				d.opts.Logf("store: dataset %s: removing %s: %v", d.name, b.ID(), err)
			}
		}
		b.unref()
	}
}

// replaceBlocks puts news in the place of olds in the dataset's block
// list, kept in id order; a snapshot taken after it sees news only. The
// caller still holds the list's references to olds.
func (d *Dataset) replaceBlocks(olds, news []*blockPart) {
	d.mu.Lock()
	defer d.mu.Unlock()
	kept := d.blocks[:0:0]
	for _, b := range d.blocks {
		if !slices.Contains(olds, b) {
			kept = append(kept, b)
		}
	}
	kept = append(kept, news...)
	slices.SortFunc(kept, func(a, b *blockPart) int { return cmpInt(int64(a.id), int64(b.id)) })
	d.blocks = kept
}
