//go:build unix

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

// putCounter counts what is written through it.
type putCounter struct {
	ObjectStore
	puts, bytes atomic.Int64
}

func (p *putCounter) Put(ctx context.Context, key string, data []byte) error {
	p.puts.Add(1)
	p.bytes.Add(int64(len(data)))
	return p.ObjectStore.Put(ctx, key, data)
}

func (p *putCounter) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	p.puts.Add(1)
	p.bytes.Add(int64(len(data)))
	return p.ObjectStore.PutIfAbsent(ctx, key, data)
}

// processCPU is the CPU time (user + system) the test process has used:
// on a machine shared with other work the wall clock includes waiting
// for a core, so the figures give both.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// start collects the garbage of earlier steps (so a step's CPU is its
// own) and returns the wall and CPU clocks to measure from.
func start() (time.Time, time.Duration) {
	runtime.GC()
	return time.Now(), processCPU()
}

// took says how long since began, in wall and CPU time.
func took(began time.Time, cpu time.Duration) string {
	return fmt.Sprintf("%v (CPU %v)", time.Since(began).Round(time.Millisecond), (processCPU() - cpu).Round(time.Millisecond))
}

// scaleBlocks is how many blocks TestCatalogScale builds, how far apart
// in time, and in which formats: 10,000 a second apart (three hours'
// partitions) in format 3, 1,000 ten seconds apart under the race
// detector (make test); APLITE_CATALOG_BLOCKS a second apart in formats 2
// and 3 for the figures (make catalog-scale: 10^5 and 10^6).
func scaleBlocks(t *testing.T) (int, time.Duration, []int) {
	s := os.Getenv("APLITE_CATALOG_BLOCKS")
	switch {
	case s == "" && testutil.Race:
		return 1000, 10 * time.Second, []int{3}
	case s == "":
		return 10000, time.Second, []int{3}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 3600 {
		t.Fatalf("APLITE_CATALOG_BLOCKS=%q: want a number of blocks, at least 3600", s)
	}
	return n, time.Second, []int{2, 3}
}

// A dataset's catalog at the scale of a petabyte, built in the in-memory
// object store: a block a second (3,600 an hour, 1Mi events each at
// 1 PB a year), entries of a small real block. Each format writes the
// dataset once, 30 flushes of 4 blocks into the newest hour and a
// checkpoint, then a cold reader builds it whole, a query over the last
// hour reads what it needs, and a query node opens the bucket. Format 3
// must read at most 2 manifests for the last hour and write only the
// newest hour's at the checkpoint; the figures are logged.
func TestCatalogScale(t *testing.T) {
	n, step, formats := scaleBlocks(t)
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	ds, _ := db.Create("logs")
	ds.Append(hourRows(0, 5))
	ds.Flush()
	model := ds.files.(*objFiles).cat.Blocks[0]
	db.Close()
	entry, _ := json.Marshal(model)
	t.Logf("%d blocks, catalog entries of %d B of JSON", n, len(entry))
	for _, format := range formats {
		t.Run(fmt.Sprintf("format%d", format), func(t *testing.T) { scaleRun(t, n, step, format, model) })
	}
}

func scaleRun(t *testing.T, n int, step time.Duration, format int, model catalogBlock) {
	writeFormat = format
	defer func() { writeFormat = catalogFormat }()
	ctx := context.Background()
	mem := NewMemObjects()
	objs := &putCounter{ObjectStore: mem}
	t0 := int64(1e18) / int64(time.Hour) * int64(time.Hour)
	sec, perHour := int64(step), int(time.Hour/step)
	c := &catalog{Dataset: "logs", Version: 1, Created: time.Unix(1, 0).UTC(), NextBlock: 1}
	c.Blocks = make([]catalogBlock, 0, n+200)
	for i := range n {
		c.Blocks = append(c.Blocks, fakeEntry(model, c.NextBlock, t0+int64(i)*sec, t0+int64(i+1)*sec-1))
		c.NextBlock++
	}
	began, cpu := start()
	if err := writeCatalog(ctx, objs, nil, c); err != nil {
		t.Fatal(err)
	}
	t.Logf("writing the dataset: %s, %d objects, %d B", took(began, cpu), objs.puts.Load(), objs.bytes.Load())
	if entry, _ := json.Marshal(model); objs.bytes.Load()*2 > int64(n*len(entry)) {
		t.Errorf("%d entries of %d B of JSON stored in %d B: not compressed", n, len(entry), objs.bytes.Load())
	}

	// A commit: a flush of 4 blocks into the newest hour (the last
	// hour's blocks end at t0+n s).
	commit := func() (time.Duration, time.Duration, int64, int64) {
		next := c.clone()
		next.Version++
		for range 4 {
			lo := t0 + int64(n-1)*sec + int64(next.NextBlock)
			next.Blocks = append(next.Blocks, fakeEntry(model, next.NextBlock, lo, lo+sec/2))
			next.NextBlock++
		}
		puts, bytes := objs.puts.Load(), objs.bytes.Load()
		began, cpu := start()
		if err := writeCatalog(ctx, objs, c, next); err != nil {
			t.Fatal(err)
		}
		wall, cpu := time.Since(began), processCPU()-cpu
		c = next
		return wall, cpu, objs.puts.Load() - puts, objs.bytes.Load() - bytes
	}
	var deltaWall, deltaCPU time.Duration
	var deltaBytes int64
	for range checkpointEvery - 2 { // versions 2..31
		wall, cpu, _, bytes := commit()
		deltaWall, deltaCPU, deltaBytes = deltaWall+wall, deltaCPU+cpu, deltaBytes+bytes
	}
	t.Logf("a flush (delta): %v (CPU %v), %d B", deltaWall/(checkpointEvery-2), deltaCPU/(checkpointEvery-2), deltaBytes/(checkpointEvery-2))
	wall, ccpu, puts, bytes := commit() // version 32: a checkpoint
	t.Logf("a checkpoint: %v (CPU %v), %d objects, %d B", wall.Round(time.Microsecond), ccpu.Round(time.Microsecond), puts, bytes)
	if format == 3 && puts != 2 {
		t.Errorf("the checkpoint wrote %d objects, want the root and the newest hour's manifest", puts)
	}
	for range 3 { // deltas on the checkpoint
		commit()
	}

	gets, got := mem.Gets, mem.GetByte
	began, cpu = start()
	whole, err := loadCatalog(ctx, mem, "logs", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a cold reader builds it whole: %s, %d GETs, %d B", took(began, cpu), mem.Gets-gets, mem.GetByte-got)
	if len(whole.Blocks) != len(c.Blocks) || whole.Blocks[len(whole.Blocks)-1].Key != c.Blocks[len(c.Blocks)-1].Key {
		t.Fatalf("the cold reader built %d blocks, the writer %d", len(whole.Blocks), len(c.Blocks))
	}

	now := t0 + int64(n)*sec
	var manifests atomic.Int64
	mem.Fail = func(op, key string) error {
		if op == "get" && strings.Contains(key, "/manifests/") {
			manifests.Add(1)
		}
		return nil
	}
	gets, got = mem.Gets, mem.GetByte
	began, cpu = start()
	last, err := loadCatalogRange(ctx, mem, "logs", now-int64(time.Hour), now+1)
	if err != nil {
		t.Fatal(err)
	}
	mem.Fail = nil
	t.Logf("a query over the last hour: %s, %d GETs (%d manifests), %d B, %d blocks", took(began, cpu), mem.Gets-gets, manifests.Load(), mem.GetByte-got, len(last.Blocks))
	if format == 3 && (manifests.Load() > 2 || len(last.Blocks) < perHour) {
		t.Errorf("the last hour read %d manifests and found %d blocks, want at most 2 and %d or more", manifests.Load(), len(last.Blocks), perHour)
	}

	if err := register(ctx, mem, regEntry{Dataset: "logs", Created: c.Created}); err != nil {
		t.Fatal(err)
	}
	gets, got = mem.Gets, mem.GetByte
	began, cpu = start()
	ro, err := OpenRemote(Options{Objects: mem, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	t.Logf("a query node starts: %s, %d GETs, %d B", took(began, cpu), mem.Gets-gets, mem.GetByte-got)
	rds, err := ro.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	if in := rds.Info(); in.NumBlocks != len(c.Blocks) {
		t.Errorf("the query node holds %d blocks, want %d", in.NumBlocks, len(c.Blocks))
	}
	commit()
	gets, got = mem.Gets, mem.GetByte
	began, cpu = start()
	if err := ro.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("its refresh after a flush: %s, %d GETs, %d B", took(began, cpu), mem.Gets-gets, mem.GetByte-got)
	if in := rds.Info(); in.NumBlocks != len(c.Blocks) {
		t.Errorf("after a refresh the query node holds %d blocks, want %d", in.NumBlocks, len(c.Blocks))
	}
}
