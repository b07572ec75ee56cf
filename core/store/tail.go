package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Tails (OBJECTS.md, "Tails"): a writer publishes the records it
// acknowledged and has not flushed, as WAL segments in the bucket named
// by one small pointer object per slot; readers poll the pointers and
// answer with those records beside the blocks, each record counted in
// its block or in the tail by its seq, never both.

const (
	tailFormat     = 1
	tailPointerKey = "tail.json"
	tailPrefix     = "tail/"
	// tailKeep is how long a segment left out of the pointer stays in
	// the bucket: a reader that read the older pointer still finds it.
	tailKeep = time.Minute
	// tailMaxBytes bounds the records a writer holds for publishing when
	// the bucket does not take them: past it the oldest are not
	// published (they reach readers with their flush instead).
	tailMaxBytes = 64 << 20
)

// tailDoc is a slot's pointer object, tail.json.
type tailDoc struct {
	Format   int                     `json:"format"`
	Lease    uint64                  `json:"lease,omitempty"`
	Written  time.Time               `json:"written"`
	Datasets map[string]tailDocEntry `json:"datasets"`
}

// tailDocEntry is one dataset's tail in a slot: the watermark of the
// slot's catalog when the pointer was written, and the segments above it.
type tailDocEntry struct {
	Created  time.Time `json:"created"`
	Flushed  uint64    `json:"flushed"`
	Segments []tailSeg `json:"segments"`
}

// tailSeg names one segment object (relative to the slot's prefix).
type tailSeg struct {
	Key   string `json:"key"`
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
	Rows  int    `json:"rows"`
}

func tailSegKey(ds string, first uint64) string {
	return fmt.Sprintf("%s%s/%020d-%s.wal", tailPrefix, ds, first, nonce())
}

// tailQueue holds a writer's acknowledged records until they are
// published; the committer adds, the publisher takes.
type tailQueue struct {
	mu      sync.Mutex
	recs    []tailRec
	bytes   int64
	dropped int64 // records left out because the queue was full
}

// tailRec is one acknowledged record as the WAL wrote it.
type tailRec struct {
	seq     uint64
	payload []byte
	rows    int
}

// add queues records; past tailMaxBytes the oldest are let go.
func (q *tailQueue) add(recs ...tailRec) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range recs {
		q.recs = append(q.recs, r)
		q.bytes += int64(len(r.payload))
	}
	for q.bytes > tailMaxBytes && len(q.recs) > 0 {
		q.bytes -= int64(len(q.recs[0].payload))
		q.recs[0] = tailRec{}
		q.recs = q.recs[1:]
		q.dropped++
	}
}

// take empties the queue.
func (q *tailQueue) take() []tailRec {
	q.mu.Lock()
	defer q.mu.Unlock()
	recs := q.recs
	q.recs, q.bytes = nil, 0
	return recs
}

// takeDropped returns how many records were let go since the last call.
func (q *tailQueue) takeDropped() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.dropped
	q.dropped = 0
	return n
}

// putBack returns records a failed upload took, ahead of newer ones.
func (q *tailQueue) putBack(recs []tailRec) {
	q.mu.Lock()
	rest := q.recs
	q.recs, q.bytes = nil, 0
	q.mu.Unlock()
	q.add(append(recs, rest...)...)
}

// slotTail is what a reader holds of one dataset's tail in one slot.
type slotTail struct {
	created time.Time
	read    map[string]bool      // segment keys read, while the pointer names them
	recs    map[uint64]*bufBatch // by seq
}

// readTailDoc reads a slot's pointer; nil when the slot has none.
func readTailDoc(ctx context.Context, objs ObjectStore) (*tailDoc, error) {
	b, err := objs.Get(ctx, tailPointerKey)
	if errors.Is(err, ErrObjectNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc tailDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, &CorruptionError{File: tailPointerKey, Reason: "tail pointer: " + err.Error()}
	}
	if doc.Format != tailFormat {
		return nil, &CorruptionError{File: tailPointerKey, Reason: fmt.Sprintf("tail pointer format %d, this aplite reads %d", doc.Format, tailFormat)}
	}
	return &doc, nil
}

// readTailSeg reads one segment's records above floor into st; a
// segment deleted meanwhile is skipped (its records are in a block by
// now, or in a newer segment).
func readTailSeg(ctx context.Context, objs ObjectStore, slot string, seg tailSeg, floor uint64, st *slotTail) (added int, err error) {
	data, err := objs.Get(ctx, seg.Key)
	if errors.Is(err, ErrObjectNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if bytes.HasPrefix(data, zstdMagic) {
		if data, err = zstdDecompress(data, 4*len(data)); err != nil {
			return 0, &CorruptionError{File: seg.Key, Reason: "tail segment: " + err.Error()}
		}
	}
	var bad error
	scan := scanWAL(seg.Key, data, 0, func(seq uint64, payload []byte, off int64) bool {
		if seq <= floor || st.recs[seq] != nil {
			return true
		}
		rows := decodeRows(newReader(seg.Key, off, payload))
		if rows == nil {
			return false
		}
		st.recs[seq] = &bufBatch{seq: seq, rows: rows, part: NewRowsPart(fmt.Sprintf("t%s-%016x", slot, seq), rows), bytes: rowsBytes(rows)}
		added++
		return true
	})
	if scan.tail != nil {
		bad = scan.tail
	} else if len(scan.damage) > 0 {
		bad = &CorruptionError{File: seg.Key, Offset: int64(scan.damage[0].from), Reason: scan.damage[0].reason}
	}
	st.read[seg.Key] = true
	return added, bad
}

// PollTails reads every slot's tail pointer and the segments it has not
// read (read-only DBs; OBJECTS.md, "Tails"). A pointer whose flushed
// watermark is above the catalog the node holds reloads that dataset's
// catalogs first.
func (db *DB) PollTails(ctx context.Context) error {
	db.mu.Lock()
	slots := db.tailSlots
	db.mu.Unlock()
	var first error
	for _, slot := range slots {
		objs := slotObjects(db.opts.Objects, slot)
		doc, err := readTailDoc(ctx, objs)
		if err != nil {
			first = cmp.Or(first, fmt.Errorf("store: slot %s: %w", slot, err))
			continue
		}
		if doc == nil {
			continue
		}
		for name, e := range doc.Datasets {
			d, err := db.get(name)
			if err != nil || !d.created.Equal(e.Created) {
				continue // not registered (yet), or another generation's: the next Refresh tells
			}
			if err := d.applyTail(ctx, slots, slot, objs, e); err != nil {
				first = cmp.Or(first, err)
			}
		}
	}
	return first
}

// applyTail reads the dataset's new tail segments in slot and installs
// the records its catalogs do not hold yet.
func (d *Dataset) applyTail(ctx context.Context, slots []string, slot string, objs ObjectStore, e tailDocEntry) error {
	d.union.mu.Lock()
	defer d.union.mu.Unlock()
	u := &d.union
	if u.tails == nil {
		u.tails = map[string]*slotTail{}
	}
	st := u.tails[slot]
	if st == nil || !st.created.Equal(e.Created) {
		st = &slotTail{created: e.Created, read: map[string]bool{}, recs: map[uint64]*bufBatch{}}
		u.tails[slot] = st
	}
	var first error
	added := 0
	named := make(map[string]bool, len(e.Segments))
	for _, seg := range e.Segments {
		named[seg.Key] = true
		if st.read[seg.Key] {
			continue
		}
		n, err := readTailSeg(ctx, objs, slot, seg, u.watermark(slot), st)
		if err != nil {
			first = cmp.Or(first, fmt.Errorf("store: dataset %s, slot %s: %w", d.name, slot, err))
		}
		added += n
	}
	for k := range st.read {
		if !named[k] {
			delete(st.read, k)
		}
	}
	if e.Flushed > u.watermark(slot) { // the writer flushed: its blocks first
		reg := regEntry{Dataset: d.name, Created: d.created}
		d.mu.RLock()
		reg.TrimBefore = d.trimBefore
		d.mu.RUnlock()
		reloaded, err := d.applyUnionLocked(ctx, slots, reg)
		if err != nil || reloaded {
			return cmp.Or(first, err)
		}
	}
	if added > 0 {
		d.installLocked(nil, nil, 0, false)
	}
	return first
}

// watermark is the highest WAL seq in blocks of slot's catalog the union
// holds.
func (u *slotUnion) watermark(slot string) uint64 {
	if c := u.cats[slot]; c != nil {
		return c.watermark()
	}
	return 0
}

// tailBatches drops the held records the catalogs now hold and returns
// the rest, by slot and seq: what a snapshot scans beside the blocks.
func (u *slotUnion) tailBatches(trimBefore int64) []*bufBatch {
	var out []*bufBatch
	slots := make([]string, 0, len(u.tails))
	for slot := range u.tails {
		slots = append(slots, slot)
	}
	slices.Sort(slots)
	for _, slot := range slots {
		st, w := u.tails[slot], u.watermark(slot)
		from := len(out)
		for seq, b := range st.recs {
			if seq <= w {
				delete(st.recs, seq)
				continue
			}
			if trimBefore != 0 {
				if lo, _ := b.part.TimeRange(); lo < trimBefore {
					rows := filterRows(b.rows, trimBefore)
					b = &bufBatch{seq: b.seq, rows: rows, part: NewRowsPart(b.part.ID(), rows), bytes: rowsBytes(rows)}
					st.recs[seq] = b
				}
			}
			out = append(out, b)
		}
		slices.SortFunc(out[from:], func(a, b *bufBatch) int { return cmp.Compare(a.seq, b.seq) })
	}
	return out
}
