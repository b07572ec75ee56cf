package exec

import (
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// streamScan is what a scanSource needs to read a TableStream: the table
// and the types the query was planned with. Each decoded chunk becomes a
// part of its own, so the time bounds, the statistics pruning and the type
// conversions of the block scan apply to it unchanged.
type streamScan struct {
	Table   *StreamTable
	Planned map[string]vector.Type
}

// streamChunkSeq numbers the chunks of every stream: a part's ID must be
// unique in the process (the engine's memos key on it).
var streamChunkSeq atomic.Int64

// runStream pulls the stream's chunks on the workers: each worker takes
// the next chunk (one at a time), skips it when its statistics rule it
// out, decodes it and scans it as a part.
func (s *ScanSource) runStream(x *Ctx, workers int, emit func(int, *Batch) error) error {
	rd, first, err := s.Stream.Table.open()
	if err != nil {
		return err
	}
	defer rd.Close()
	var mu sync.Mutex
	ended := false
	next := func() (Chunk, *store.Rows, error) {
		mu.Lock()
		defer mu.Unlock()
		if first != nil {
			r := first
			first = nil
			return nil, r, nil
		}
		if ended {
			return nil, nil, io.EOF
		}
		c, err := rd.Next()
		if err != nil {
			ended = true
		}
		return c, nil, err
	}
	// The first chunk is scanned before the workers take any other: a
	// take N whose answers are in it stops the read there, however many
	// workers there are (with a worker per chunk, every chunk of a small
	// file was read at once). It costs the parallelism of one chunk.
	c, rows, err := next()
	if err == io.EOF {
		return nil
	}
	if err == nil {
		err = s.scanChunk(x, 0, c, rows, emit)
	}
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	var stop atomic.Bool
	for w := range max(workers, 1) {
		wg.Go(func() {
			var err error
			defer func() {
				if err != nil && err != io.EOF {
					once.Do(func() { firstErr = err })
					stop.Store(true)
				}
			}()
			defer RecoverInto(&err)
			for !stop.Load() {
				var c Chunk
				var rows *store.Rows
				if c, rows, err = next(); err != nil {
					return
				}
				if err = s.scanChunk(x, w, c, rows, emit); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// scanChunk scans one chunk, given undecoded (c) or decoded (rows).
func (s *ScanSource) scanChunk(x *Ctx, w int, c Chunk, rows *store.Rows, emit func(int, *Batch) error) error {
	if err := x.Ctx.Err(); err != nil {
		return err
	}
	if rows == nil {
		if st := c.Stats(); st != nil && s.skipPart(st) {
			x.Stats.BlocksExamined.Add(1)
			return nil
		}
		var err error
		if rows, err = c.Decode(); err != nil {
			return err
		}
	}
	if err := s.Stream.Table.check(s.Stream.Planned, rows); err != nil {
		return err
	}
	id := "stream:" + strconv.FormatInt(streamChunkSeq.Add(1), 10)
	for _, t := range s.partTasks(x, scanPart{Part: store.NewRowsPart(id, rows)}, nil) {
		if err := s.scanMorsel(x, w, t, emit); err != nil {
			return err
		}
	}
	return nil
}
