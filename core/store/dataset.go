package store

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/vector"
)

// dsFiles is a dataset's durable storage: its WAL segments and block
// files. Memory mode has none (Dataset.files is nil). Only the committer
// goroutine calls the wal* methods; only the flusher and maintenance
// goroutines call the block methods.
type dsFiles interface {
	// walWrite appends one record per payload, numbered from firstSeq.
	walWrite(payloads [][]byte, firstSeq uint64) error
	walSync() error
	// walRotate seals the current segment and starts the next, returning
	// the sealed segment's number.
	walRotate() (uint64, error)
	// walRemoveThrough deletes sealed segments numbered <= seg.
	walRemoveThrough(seg uint64) error
	// writeBlock makes data durable as block id and returns it mapped.
	writeBlock(id uint64, data []byte) (*blockPart, error)
	// removeBlock unlinks a block file (its mapping may live on).
	removeBlock(id uint64) error
	writeMeta(m dsMeta) error
	close() error
	// destroy removes the dataset's directory (after close).
	destroy() error
}

// dsMeta is the dataset's meta.json.
type dsMeta struct {
	Created    time.Time `json:"created"`
	TrimBefore int64     `json:"trimBefore"`
}

// recovered is the state Open rebuilt for a dataset.
type recovered struct {
	damaged    []Damage
	blocks     []*blockPart
	replay     []walRecord
	nextSeq    uint64
	nextBlock  uint64
	trimBefore int64
}

// walRecord is one decoded WAL record.
type walRecord struct {
	seq  uint64
	rows *Rows
}

// bufBatch is one acknowledged Append not yet in a block.
type bufBatch struct {
	seq   uint64
	rows  *Rows
	part  Part
	at    time.Time
	bytes int64
}

// Dataset is a named collection of events. All methods are safe for
// concurrent use.
type Dataset struct {
	db      *DB
	name    string
	created time.Time
	files   dsFiles
	opts    Options

	// mu guards the part lists and counters below.
	mu          sync.RWMutex
	blocks      []*blockPart // sorted by id; in file mode the last may be heap blocks not yet written
	buf         []*bufBatch  // ascending seq
	handedSeq   uint64       // highest seq handed to the flusher
	nextBlock   uint64
	trimBefore  int64
	walRecords  int64
	bufBytes    int64
	pendingRows int       // rows in buf with seq > handedSeq
	dirtyRows   int       // rows not yet handed to a final (durable) flush
	dirtySince  time.Time // when the oldest of those was appended
	damaged     []Damage  // blocks and WAL records set aside, blocks missing (Snapshot, Info)
	// union is what the node read of the dataset in other writers'
	// slots (all slots on a read-only DB, whose blocks it makes);
	// foreign are its parts on a writer, which queries read beside the
	// writer's own blocks (OBJECTS.md, "Many writers").
	union   slotUnion
	foreign []*blockPart
	// tail are the writers' published records above the watermarks of
	// the blocks a read-only DB holds; pub queues a writer's records for
	// publishing (nil unless it publishes). OBJECTS.md, "Tails".
	tail  []*bufBatch
	pub   *tailQueue
	added time.Time // when this node opened or joined the dataset

	lastAppend atomic.Int64 // ns of the last committed append (compaction policy)

	// life orders Append/Flush against shutdown: they hold it for reading
	// while talking to the committer, shutdown takes it for writing.
	life   sync.RWMutex
	closed bool

	nextSeq uint64 // committer only
	reqs    chan *appendReq
	ctl     chan ctlReq
	flushq  chan *flushJob
	trimq   chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
}

type appendReq struct {
	rows    *Rows
	payload []byte
	bytes   int64
	done    chan appendResp
}

type appendResp struct {
	res AppendResult
	err error
}

func newDataset(db *DB, name string, created time.Time, files dsFiles, rec *recovered) *Dataset {
	d := &Dataset{db: db, name: name, created: created, files: files, opts: db.opts, damaged: rec.damaged,
		blocks: rec.blocks, nextBlock: rec.nextBlock, trimBefore: rec.trimBefore, nextSeq: rec.nextSeq,
		reqs: make(chan *appendReq, 1024), ctl: make(chan ctlReq), flushq: make(chan *flushJob, 1),
		trimq: make(chan struct{}, 1), stop: make(chan struct{}), added: time.Now()}
	now := d.opts.Now()
	for _, r := range rec.replay {
		d.buf = append(d.buf, &bufBatch{seq: r.seq, rows: r.rows, part: newBufPart(r.seq, r.rows),
			at: now, bytes: rowsBytes(r.rows)})
		d.pendingRows += r.rows.N
		d.dirtyRows += r.rows.N
		d.dirtySince = now
		d.walRecords++
	}
	if d.walRecords > 0 { // a restart after events not yet in blocks: the operator sees they were kept
		d.opts.Logf("store: dataset %s: replayed %d WAL records (%d events) not yet in blocks", name, d.walRecords, d.pendingRows)
	}
	if db.tails != nil && files != nil { // a restart republishes what it replayed
		d.pub = &tailQueue{}
		for _, r := range rec.replay {
			if p, err := encodeRows(nil, r.rows); err == nil {
				d.pub.add(tailRec{seq: r.seq, payload: p, rows: r.rows.N})
			}
		}
	}
	d.handedSeq = rec.nextSeq - 1
	if len(d.buf) > 0 {
		d.handedSeq = d.buf[0].seq - 1
	}
	d.wg.Add(3)
	go d.commitLoop()
	go d.flushLoop()
	go d.maintLoop()
	return d
}

func newBufPart(seq uint64, r *Rows) Part { return NewRowsPart(fmt.Sprintf("m%016x", seq), r) }

// Name returns the dataset's name.
func (d *Dataset) Name() string { return d.name }

// Append logs r durably (unless Options.NoSync) and then makes it visible
// to Snapshot. Concurrent Appends share one WAL write and fsync. r must not
// be modified afterwards.
func (d *Dataset) Append(r *Rows) (AppendResult, error) {
	if d.db.readOnly {
		return AppendResult{}, ErrReadOnly
	}
	if err := d.db.fence(); err != nil {
		return AppendResult{}, err
	}
	if err := checkRows(r); err != nil {
		return AppendResult{}, err
	}
	req := &appendReq{rows: r, bytes: rowsBytes(r), done: make(chan appendResp, 1)}
	if d.files != nil {
		// rowsBytes leaves out length prefixes and validity bitmaps; an
		// eighth more avoids regrowing (and copying) a megabyte payload.
		p, err := encodeRows(make([]byte, 0, req.bytes+req.bytes/8+64), r)
		if err != nil {
			return AppendResult{}, err
		}
		req.payload = p
	} else if err := checkDyns(r); err != nil {
		return AppendResult{}, err
	}
	d.life.RLock()
	defer d.life.RUnlock()
	if d.closed {
		return AppendResult{}, ErrClosed
	}
	if r.N == 0 {
		d.mu.RLock()
		defer d.mu.RUnlock()
		return AppendResult{WALLength: d.walRecords}, nil
	}
	d.reqs <- req
	resp := <-req.done
	return resp.res, resp.err
}

// checkDyns rejects dynamic values the block format cannot store, so
// memory mode refuses what file mode would.
func checkDyns(r *Rows) error {
	var scratch []byte
	for i, c := range r.Cols {
		if c.Type != vector.Dynamic {
			continue
		}
		for j := 0; j < c.Len; j++ {
			if c.IsNull(j) {
				continue
			}
			var err error
			if scratch, err = putDyn(scratch[:0], c.Dyn(j)); err != nil {
				return fmt.Errorf("column %q: %w", r.Keys[i].Name, err)
			}
		}
	}
	return nil
}

// rowsBytes estimates the uncompressed size of a batch (Info.InputBytes).
func rowsBytes(r *Rows) int64 {
	n := int64(16 + 8*r.N)
	for i, c := range r.Cols {
		n += int64(len(r.Keys[i].Name))
		switch c.Type {
		case vector.Bool:
			n += int64(c.Len)
		case vector.Int, vector.DateTime, vector.TimeSpan, vector.Float:
			n += 8 * int64(c.Len)
		case vector.String:
			for j := 0; j < c.Len; j++ {
				n += int64(len(c.Str(j)))
			}
		case vector.Dynamic:
			n += 16 * int64(c.Len)
		}
	}
	return n
}

// Snapshot returns the dataset's parts at this moment: blocks first (by
// id), then buffered batches (by seq). Call Release when done.
func (d *Dataset) Snapshot() *Snapshot {
	d.mu.RLock()
	parts := make([]Part, 0, len(d.blocks)+len(d.buf))
	held := make([]*blockPart, 0, len(d.blocks))
	for _, b := range d.blocks {
		if b.acquire() {
			parts = append(parts, b)
			held = append(held, b)
		}
	}
	for _, b := range d.foreign {
		if b.acquire() {
			parts = append(parts, b)
			held = append(held, b)
		}
	}
	for _, b := range d.buf {
		parts = append(parts, b.part)
	}
	for _, b := range d.tail {
		parts = append(parts, b.part)
	}
	damaged := d.damaged
	d.mu.RUnlock()
	d.db.queries.enter()
	var once atomic.Bool
	return &Snapshot{Dataset: d.name, Parts: parts, Damaged: damaged, release: func() {
		if once.CompareAndSwap(false, true) {
			for _, b := range held {
				b.unref()
			}
			d.db.queries.leave()
		}
	}}
}

// Info summarises the dataset.
func (d *Dataset) Info() Info {
	d.mu.RLock()
	defer d.mu.RUnlock()
	in := Info{Name: d.name, Created: d.created, NumBlocks: len(d.blocks) + len(d.foreign), Damaged: d.damaged}
	fields := map[ColKey]bool{}
	first := true
	extend := func(lo, hi int64, rows int) {
		if rows == 0 {
			return
		}
		if first || lo < in.MinTime {
			in.MinTime = lo
		}
		if first || hi > in.MaxTime {
			in.MaxTime = hi
		}
		first = false
	}
	for _, b := range slices.Concat(d.blocks, d.foreign) {
		in.NumEvents += int64(b.Rows())
		in.CompressedBytes += int64(b.Size())
		in.InputBytes += b.idx.inputBytes
		lo, hi := b.TimeRange()
		extend(lo, hi, b.Rows())
		for _, m := range b.meta {
			fields[m.Key] = true
		}
	}
	for _, b := range slices.Concat(d.buf, d.tail) {
		in.NumEvents += int64(b.rows.N)
		in.InputBytes += b.bytes
		lo, hi := b.part.TimeRange()
		extend(lo, hi, b.rows.N)
		for _, k := range b.rows.Keys {
			fields[k] = true
		}
	}
	for k := range fields {
		in.Fields = append(in.Fields, k)
	}
	slices.SortFunc(in.Fields, func(a, b ColKey) int {
		if a.Name != b.Name {
			if a.Name < b.Name {
				return -1
			}
			return 1
		}
		return int(a.Type) - int(b.Type)
	})
	return in
}
