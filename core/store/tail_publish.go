package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// tailZstd compresses segments at zstd's fastest level: a segment is
// read a few times in its short life, and the default level took 13%
// of an ingest's CPU (BenchmarkTailPublish) where this takes about a
// third of that.
var tailZstd = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("store: zstd encoder: " + err.Error()) // only on invalid options
	}
	return enc
})

// tailPublisher is a writer's side of the tails (OBJECTS.md, "Tails"):
// every TailInterval it uploads each dataset's newly acknowledged
// records as a segment, then rewrites its slot's pointer if it changed.
type tailPublisher struct {
	db      *DB
	mu      sync.Mutex // one publish at a time
	sets    map[string]*pubSet
	retired []retiredSeg
	last    []byte // the pointer last written, without its time
}

// pubSet is what the pointer names of one dataset.
type pubSet struct {
	created time.Time
	segs    []tailSeg
}

// retiredSeg is a segment the pointer no longer names, deleted once
// tailKeep has passed.
type retiredSeg struct {
	key string
	at  time.Time
}

// startTails makes db a publisher of tails; the segments an earlier run
// of this slot left are deleted after tailKeep (they hold records this
// run replays and publishes again).
func (db *DB) startTails(ctx context.Context) error {
	if db.opts.TailInterval <= 0 {
		return nil
	}
	p := &tailPublisher{db: db, sets: map[string]*pubSet{}}
	res, err := db.slotObjs.List(ctx, tailPrefix, "")
	if err != nil {
		return fmt.Errorf("store: listing the slot's tail segments: %w", err)
	}
	now := time.Now()
	for _, o := range res.Objects {
		p.retired = append(p.retired, retiredSeg{key: o.Key, at: now})
	}
	db.tails = p
	return nil
}

// runTails publishes every TailInterval until Close.
func (db *DB) runTails() {
	if db.tails != nil {
		db.every(db.opts.TailInterval, opTimeout, "publishing the tail", db.PublishTails)
	}
}

// PublishTails uploads the records acknowledged since the last call and
// rewrites the slot's tail pointer if it changed (writers on object
// storage; a no-op otherwise).
func (db *DB) PublishTails(ctx context.Context) error {
	p := db.tails
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	doc := tailDoc{Format: tailFormat, Lease: db.lease.token(), Datasets: map[string]tailDocEntry{}}
	var first error
	for _, d := range db.List() {
		f, ok := d.files.(interface{ flushed() uint64 })
		if !ok || d.pub == nil {
			continue
		}
		ps := p.sets[d.name]
		if ps == nil || !ps.created.Equal(d.created) {
			if ps != nil {
				p.retire(ps.segs)
			}
			ps = &pubSet{created: d.created}
			p.sets[d.name] = ps
		}
		if n := d.pub.takeDropped(); n > 0 {
			db.opts.Logf("store: dataset %s: %d acknowledged appends were not published in its tail (more than %d MiB waited for the bucket); query nodes see them at the flush", d.name, n, tailMaxBytes>>20)
		}
		flushed := f.flushed()
		recs := d.pub.take()
		for len(recs) > 0 && recs[0].seq <= flushed { // in a block already: no reader needs them
			recs = recs[1:]
		}
		if len(recs) > 0 {
			seg, err := p.upload(ctx, d.name, recs)
			if err != nil {
				d.pub.putBack(recs)
				first = cmp.Or(first, fmt.Errorf("dataset %s: uploading its tail: %w", d.name, err))
			} else {
				ps.segs = append(ps.segs, seg)
			}
		}
		flushed = f.flushed()
		var keep []tailSeg
		for _, s := range ps.segs {
			if s.Last > flushed {
				keep = append(keep, s)
			} else {
				p.retire([]tailSeg{s})
			}
		}
		ps.segs = keep
		doc.Datasets[d.name] = tailDocEntry{Created: d.created, Flushed: flushed, Segments: keep}
	}
	for name, ps := range p.sets {
		if _, ok := doc.Datasets[name]; !ok { // deleted here
			p.retire(ps.segs)
			delete(p.sets, name)
		}
	}
	if err := p.writePointer(ctx, &doc); err != nil {
		first = cmp.Or(first, err)
	}
	p.sweep(ctx)
	return first
}

// upload writes recs as one segment: a WAL segment of the records as
// the WAL wrote them.
func (p *tailPublisher) upload(ctx context.Context, ds string, recs []tailRec) (tailSeg, error) {
	if err := p.db.lease.check(); err != nil {
		return tailSeg{}, err
	}
	size := walHeaderLen
	for _, r := range recs {
		size += frameHeadLen + 8 + len(r.payload)
	}
	b := append(make([]byte, 0, size), walHeader()...)
	seg := tailSeg{Key: tailSegKey(ds, recs[0].seq), First: recs[0].seq, Last: recs[len(recs)-1].seq}
	for _, r := range recs {
		b = appendFrame(b, r.seq, r.payload)
		seg.Rows += r.rows
	}
	if len(b) >= compressCatalogAt { // the rows payloads compress several-fold
		b = tailZstd().EncodeAll(b, nil)
	}
	return seg, p.db.slotObjs.Put(ctx, seg.Key, b)
}

// writePointer writes doc as the slot's pointer unless it names what the
// last one did.
func (p *tailPublisher) writePointer(ctx context.Context, doc *tailDoc) error {
	same, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if bytes.Equal(same, p.last) {
		return nil
	}
	doc.Written = time.Now().UTC()
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if err := p.db.lease.check(); err != nil {
		return err
	}
	if err := p.db.slotObjs.Put(ctx, tailPointerKey, b); err != nil {
		return fmt.Errorf("writing the tail pointer: %w", err)
	}
	p.last = same
	return nil
}

func (p *tailPublisher) retire(segs []tailSeg) {
	now := time.Now()
	for _, s := range segs {
		p.retired = append(p.retired, retiredSeg{key: s.Key, at: now})
	}
}

// sweep deletes the segments retired at least tailKeep ago.
func (p *tailPublisher) sweep(ctx context.Context) {
	keep := p.retired[:0]
	for _, r := range p.retired {
		if time.Since(r.at) < tailKeep || p.db.lease.check() != nil {
			keep = append(keep, r)
			continue
		}
		if err := p.db.slotObjs.Delete(ctx, r.key); err != nil {
			keep = append(keep, r)
		}
	}
	p.retired = keep
}
