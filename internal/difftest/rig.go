package difftest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
)

// Workers is the parallelism of the N-worker mode (the reference runs
// one): more than the machine's cores is fine, it is the merge of
// per-worker states that is under test.
const Workers = 4

// Rig holds one generated data set three times, so that every mode can
// answer any query at any time (the minimizer re-runs them):
//   - buf: the events in the ingest buffer, never flushed;
//   - main: flushed to one block per append in an in-memory bucket, with
//     query nodes a and b over the bucket (bName is chosen so that each
//     node owns a block);
//   - comp: flushed the same way, then merged by compaction.
type Rig struct {
	Data      *Data
	dir       string
	dbs       []*store.DB
	buf, main *core.Engine
	comp      *core.Engine
	a, b      *core.Engine
	bName     string
	ran       atomic.Int64 // fragments node b ran
}

// NewRig ingests d three times into stores under dir.
func NewRig(d *Data, dir string) (*Rig, error) {
	if d.Params.Chunks < 4 {
		return nil, fmt.Errorf("%d chunks: compaction needs at least 4 blocks to merge", d.Params.Chunks)
	}
	r := &Rig{Data: d, dir: dir}
	err := r.build()
	if err != nil {
		err = errors.Join(err, r.Close())
	}
	return r, err
}

func (r *Rig) build() error {
	bufDB, err := r.ingest("buf", nil, time.Hour)
	if err != nil {
		return err
	}
	r.buf = core.NewEngine(exec.StoreCatalog(bufDB))

	objs := store.NewMemObjects()
	mainDB, err := r.ingest("main", objs, time.Hour)
	if err == nil {
		err = flush(mainDB)
	}
	if err != nil {
		return err
	}
	r.main = core.NewEngine(exec.StoreCatalog(mainDB))
	if err := r.nodes(objs); err != nil {
		return err
	}

	compDB, err := r.ingest("comp", store.NewMemObjects(), 10*time.Millisecond)
	if err == nil {
		err = flush(compDB)
	}
	if err == nil {
		err = waitCompacted(compDB)
	}
	if err != nil {
		return err
	}
	r.comp = core.NewEngine(exec.StoreCatalog(compDB))
	return nil
}

// ingest opens a store (in dir/name, blocks in objs when set) and appends
// the data, logs in Params.Chunks appends. A flush writes one block per
// append; compaction looks for work every compactEvery and merges as
// soon as a dataset is idle.
func (r *Rig) ingest(name string, objs store.ObjectStore, compactEvery time.Duration) (*store.DB, error) {
	rows := r.Data.Params.Events/max(r.Data.Params.Chunks, 1) + 1
	db, err := store.Open(r.dir+"/"+name, store.Options{Objects: objs, NoSync: true,
		FlushRows: 1 << 30, SealRows: rows, FlushInterval: time.Hour, IdleFlush: time.Hour,
		CompactInterval: compactEvery, CompactIdle: time.Millisecond, CompactAge: time.Hour,
		Grace: time.Hour})
	if err != nil {
		return nil, err
	}
	r.dbs = append(r.dbs, db)
	for name, chunks := range map[string][][]byte{"logs": r.Data.Logs, "dims": {r.Data.Dims}} {
		ds, err := db.Create(name)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			b := store.NewRowsBuilder()
			res, err := ingest.Decode(c, ingest.Options{Format: ingest.NDJSON, Now: Now.UnixNano()}, b)
			if err != nil {
				return nil, err
			}
			if res.Failed > 0 {
				return nil, fmt.Errorf("ingest of %s: %d events failed: %+v", name, res.Failed, res.Failures)
			}
			if _, err := ds.Append(b.Finish(Now.UnixNano())); err != nil {
				return nil, err
			}
		}
	}
	return db, nil
}

func flush(db *store.DB) error {
	for _, ds := range db.List() {
		if err := ds.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// waitCompacted waits until compaction has merged logs' blocks until
// fewer than four are left, the fewest it merges (the store offers no
// call that compacts now; its loop runs every 10 ms here and merges at
// once since nothing is appended).
func waitCompacted(db *store.DB) error {
	ds, err := db.Get("logs")
	if err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for ds.Info().NumBlocks > 3 {
		if time.Now().After(deadline) {
			return fmt.Errorf("compaction left %d blocks after 60 s", ds.Info().NumBlocks)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// nodes opens query nodes a and b over the bucket and names b so that
// each node owns at least one block of logs.
func (r *Rig) nodes(objs *store.MemObjects) error {
	for _, e := range []**core.Engine{&r.a, &r.b} {
		db, err := store.OpenRemote(store.Options{Objects: objs, Refresh: time.Hour, Grace: time.Hour})
		if err != nil {
			return err
		}
		r.dbs = append(r.dbs, db)
		*e = core.NewEngine(exec.StoreCatalog(db))
	}
	var keys []string
	for _, k := range objs.Keys() {
		if strings.HasSuffix(k, ".blk") && strings.Contains(k, "/logs/") {
			keys = append(keys, k)
		}
	}
	for i := 0; r.bName == "" && i < 1000; i++ {
		name := fmt.Sprintf("b%d", i)
		owners := map[string]int{}
		for _, k := range keys {
			owners[exec.Rendezvous([]string{"a", name}, k)[0]]++
		}
		if owners["a"] > 0 && owners[name] > 0 {
			r.bName = name
		}
	}
	if r.bName == "" {
		return fmt.Errorf("no node name splits logs' %d blocks between two nodes", len(keys))
	}
	return nil
}

// Close releases the stores and removes their directories.
func (r *Rig) Close() error {
	var errs []error
	for _, db := range r.dbs {
		errs = append(errs, db.Close())
	}
	errs = append(errs, os.RemoveAll(r.dir))
	return errors.Join(errs...)
}

// A Mode is one way of answering a query.
type Mode string

// The modes; Ref is what the others are compared with.
const (
	Ref       Mode = "ref"       // blocks, 1 worker, no result cache
	ModeN     Mode = "workers"   // blocks, Workers workers
	ModeCache Mode = "cache"     // blocks, answered a second time from the result cache
	ModeBuf   Mode = "buffer"    // the unflushed buffer, Workers workers
	ModeDist  Mode = "nodes"     // node a with node b running fragments
	ModeComp  Mode = "compacted" // the blocks merged by compaction, Workers workers
)

// Modes are the modes compared with Ref, in the order they run.
var Modes = []Mode{ModeN, ModeCache, ModeBuf, ModeDist, ModeComp}

// Answer runs q one way and returns what a client would decode.
func (r *Rig) Answer(ctx context.Context, q string, m Mode) *Answer {
	e, req := r.main, exec.Request{APL: q, Now: Now, Workers: Workers, DisableCache: true, DefaultLimit: -1}
	var failed []string
	var mu sync.Mutex
	switch m {
	case Ref:
		req.Workers = 1
	case ModeCache:
		req.DisableCache = false
		req.Workers = 0 // a query naming its parallelism is not cached
		first := req
		if _, err := e.Query(ctx, &first); err != nil {
			return errAnswer(err)
		}
	case ModeBuf:
		e = r.buf
	case ModeComp:
		e = r.comp
	case ModeDist:
		e = r.a
		req.Distribute = r.distribution(func(node string, err error) {
			mu.Lock()
			defer mu.Unlock()
			failed = append(failed, node+": "+err.Error())
		})
	}
	o, err := e.Query(ctx, &req)
	if err != nil {
		return errAnswer(err)
	}
	a := fromTabular(render.Tabular(o))
	a.cacheHit = o.CacheStatus == output.CacheHit
	mu.Lock()
	defer mu.Unlock()
	if len(failed) > 0 { // node a scanned those blocks itself, but a fragment that fails is a finding
		a.Err = "fragment failed: " + strings.Join(failed, "; ")
	}
	return a
}

func (r *Rig) distribution(onFailure func(string, error)) *exec.Distribution {
	return &exec.Distribution{Nodes: []string{"a", r.bName}, Self: "a",
		Run: func(ctx context.Context, node string, f *exec.Fragment) ([]byte, error) {
			if node != r.bName {
				return nil, errors.New("unknown node " + node)
			}
			js, err := json.Marshal(f) // a fragment travels as JSON
			if err != nil {
				return nil, err
			}
			var got exec.Fragment
			if err := json.Unmarshal(js, &got); err != nil {
				return nil, err
			}
			r.ran.Add(1)
			return r.b.RunFragment(ctx, &got)
		},
		OnFailure: onFailure}
}
