//go:build !js

package store

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// tailOpts are writer options whose tail loop never ticks on its own: the
// test publishes with PublishTails.
func tailOpts(objs ObjectStore) Options {
	o := objOpts(objs)
	o.TailInterval = time.Hour
	return o
}

// tailReader is a query node that polls tails only when the test does.
func tailReader(t *testing.T, objs ObjectStore) (*DB, *Dataset) {
	t.Helper()
	ro, err := OpenRemote(Options{Objects: objs, Refresh: time.Hour, TailInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	rds, err := ro.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	return ro, rds
}

func publishAndPoll(t *testing.T, w, ro *DB) {
	t.Helper()
	ctx := context.Background()
	if err := w.PublishTails(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ro.PollTails(ctx); err != nil {
		t.Fatal(err)
	}
}

// A query node sees every acknowledged event once its writer has
// published, before any flush; flushes by size go on meanwhile, and each
// event is counted in its block or in the tail, never both.
func TestTailsFreshExactlyOnce(t *testing.T) {
	objs := NewMemObjects()
	w := mustObjDB(t, t.TempDir(), tailOpts(objs))
	defer w.Close()
	ds, err := w.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	ro, rds := tailReader(t, objs)
	acked := map[string]bool{}
	for i := range 30 {
		rows := idRows("w", i, 170) // FlushRows 1000: a flush every six batches
		if _, err := ds.Append(rows); err != nil {
			t.Fatal(err)
		}
		for j := range 170 {
			acked[idRows("w", i, 170).Cols[0].Str(j)] = true
		}
		publishAndPoll(t, w, ro)
		exactlyOnce(t, "query node", idCounts(t, rds), acked)
	}
	if got := rds.Info().NumEvents; got != int64(len(acked)) {
		t.Errorf("dataset info on the query node: %d events, want %d", got, len(acked))
	}
	puts := objs.Puts
	publishAndPoll(t, w, ro)
	if objs.Puts != puts {
		t.Errorf("an idle writer made %d PUTs publishing its tail, want none", objs.Puts-puts)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	publishAndPoll(t, w, ro)
	exactlyOnce(t, "query node after the last flush", idCounts(t, rds), acked)
	rds.mu.RLock()
	held := len(rds.tail)
	rds.mu.RUnlock()
	if held != 0 {
		t.Errorf("after the flush the query node still scans %d tail records", held)
	}
}

// What a writer published stays visible after it dies without a flush;
// restarted on its data directory it replays and publishes its WAL
// again, and the query node still counts each event once.
func TestTailsDeadWriter(t *testing.T) {
	objs := NewMemObjects()
	dir := t.TempDir()
	opts := tailOpts(objs)
	w := mustObjDB(t, dir, opts)
	ds, _ := w.Create("logs")
	acked := map[string]bool{}
	appendID := func(ds *Dataset, batch int) {
		t.Helper()
		rows := idRows("w", batch, 100)
		if _, err := ds.Append(rows); err != nil {
			t.Fatal(err)
		}
		for j := range rows.N {
			acked[rows.Cols[0].Str(j)] = true
		}
	}
	for i := range 3 {
		appendID(ds, i)
	}
	ro, rds := tailReader(t, objs)
	publishAndPoll(t, w, ro)
	if segs := tailSegments(t, objs); len(segs) != 1 || !bytes.HasPrefix(segs[0], zstdMagic) {
		t.Fatalf("%d tail segments after one publish of 300 events, want one, zstd-compressed", len(segs))
	}
	// The writer dies here: no Close (it would flush), its lock let go.
	w.unlock()
	if err := ro.PollTails(context.Background()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "query node, writer dead", idCounts(t, rds), acked)

	w2 := mustObjDB(t, dir, opts)
	defer w2.Close()
	ds2, err := w2.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	appendID(ds2, 3)
	publishAndPoll(t, w2, ro) // the replayed records again, in a new segment
	exactlyOnce(t, "query node, writer restarted", idCounts(t, rds), acked)
	if err := ds2.Flush(); err != nil {
		t.Fatal(err)
	}
	publishAndPoll(t, w2, ro)
	exactlyOnce(t, "query node, writer restarted and flushed", idCounts(t, rds), acked)
}

// A pointer that does not parse fails the poll naming it, and the query
// node goes on answering with what it held.
func TestTailsBadPointer(t *testing.T) {
	objs := NewMemObjects()
	w := mustObjDB(t, t.TempDir(), tailOpts(objs))
	defer w.Close()
	ds, _ := w.Create("logs")
	if _, err := ds.Append(idRows("w", 0, 10)); err != nil {
		t.Fatal(err)
	}
	ro, rds := tailReader(t, objs)
	publishAndPoll(t, w, ro)
	if err := objs.Put(context.Background(), tailPointerKey, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	err := ro.PollTails(context.Background())
	var ce *CorruptionError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), tailPointerKey) {
		t.Fatalf("a damaged pointer: %v, want a corruption error naming %s", err, tailPointerKey)
	}
	if n := len(idCounts(t, rds)); n != 10 {
		t.Errorf("after a bad poll the query node sees %d events, want the 10 it held", n)
	}
}

// tailSegments returns the tail segment objects in the bucket.
func tailSegments(t *testing.T, objs *MemObjects) [][]byte {
	t.Helper()
	var out [][]byte
	for _, k := range objs.Keys() {
		if strings.HasPrefix(k, tailPrefix) || strings.Contains(k, "/"+tailPrefix) {
			b, err := objs.Get(context.Background(), k)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// BenchmarkTailPublish is the in-process cost of publishing tails:
// appends of 10,000 rows to a writer on an in-memory bucket, with its
// tail published after every fourth append or never.
func BenchmarkTailPublish(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			objs := NewMemObjects()
			opts := objOpts(objs)
			opts.FlushRows, opts.SealRows = 262144, 65536
			if mode == "on" {
				opts.TailInterval = time.Hour
			}
			db, err := Open(b.TempDir(), opts)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			ds, _ := db.Create("logs")
			batches := make([]*Rows, 8)
			for i := range batches {
				batches[i] = mixedRows(10_000, 1e18+int64(i)*1e12)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := ds.Append(batches[i%len(batches)]); err != nil {
					b.Fatal(err)
				}
				if i%4 == 3 {
					if err := db.PublishTails(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10_000), "ns/event")
		})
	}
}

// A segment the bucket refuses fails the publish naming the dataset, and
// its records go out with the next publish: the query node then counts
// each once.
func TestTailsUploadRetried(t *testing.T) {
	objs := NewMemObjects()
	w := mustObjDB(t, t.TempDir(), tailOpts(objs))
	defer w.Close()
	ds, _ := w.Create("logs")
	ro, rds := tailReader(t, objs)
	var down atomic.Bool
	objs.Fail = func(op, key string) error {
		if down.Load() && op == "put" && strings.HasPrefix(key, tailPrefix) {
			return errors.New("injected: bucket refuses the segment")
		}
		return nil
	}
	acked := map[string]bool{}
	for i := range 2 {
		rows := idRows("w", i, 50)
		if _, err := ds.Append(rows); err != nil {
			t.Fatal(err)
		}
		for j := range rows.N {
			acked[rows.Cols[0].Str(j)] = true
		}
		down.Store(i == 0)
		err := w.PublishTails(context.Background())
		if i == 0 {
			if err == nil || !strings.Contains(err.Error(), "dataset logs") {
				t.Fatalf("a refused segment: %v, want an error naming dataset logs", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := ro.PollTails(context.Background()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "query node", idCounts(t, rds), acked)
}

// A writer paused past its lease, its slot taken over, publishes no
// tail: the bucket stays as it was and the publish says why.
func TestTailsFencedWriter(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	dir := t.TempDir()
	opts := multiOpts(objs, clock)
	opts.TailInterval = time.Hour
	w := mustObjDB(t, dir, opts)
	ds, _ := w.Create("logs")
	if _, err := ds.Append(idRows("w", 0, 10)); err != nil {
		t.Fatal(err)
	}
	clock.add(31 * time.Second)
	taker := mustObjDB(t, sameSlot(t, dir), opts)
	defer taker.Close()
	before := objs.Keys()
	if err := w.PublishTails(context.Background()); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("publishing on a fenced writer: %v, want ErrLeaseLost", err)
	}
	if after := objs.Keys(); !slices.Equal(before, after) {
		t.Errorf("the fenced writer changed the bucket:\nbefore %v\nafter  %v", before, after)
	}
}
