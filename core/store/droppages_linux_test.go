//go:build linux

package store

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Reading the columns of a mapped block leaves few of its pages in the
// process's resident set: the server's RSS follows what queries hold on
// the heap, not every byte of block file they ever read. The values read
// after the pages were dropped are still the rows written.
func TestReadColumnDropsMappedPages(t *testing.T) {
	const n = 40 * pageRows
	rows := pagedRows(n)
	path := filepath.Join(t.TempDir(), "b.blk")
	data := blockOf(t, rows, 0)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := mapBlock(1, path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.unref()
	for range 2 {
		sameEvents(t, eventsOf(t, p), eventsOfRows(rows))
		if _, err := p.ReadPages(msgKey, 3, 7); err != nil {
			t.Fatal(err)
		}
		rss := mappedRSS(t, path)
		// The index and the page edges shared by two columns stay.
		if limit := len(data) / 8; rss > limit {
			t.Fatalf("%d of the block's %d bytes resident after reading every column, want at most %d", rss, len(data), limit)
		}
	}
}

// mappedRSS is the resident size of the mappings of path, from
// /proc/self/smaps.
func mappedRSS(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's header line
			in = fields[len(fields)-1] == path
			continue
		}
		if in && fields[0] == "Rss:" {
			kb, _ := strconv.Atoi(fields[1])
			total += kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// Opening a mapped block reads its header and whole index (the CRC covers
// it, term filters included) and then leaves none of it resident: a
// server over many blocks starts without megabytes of index pages per
// block in its RSS. The part still answers from the index afterwards.
func TestMapBlockDropsIndexPages(t *testing.T) {
	const n = 2 * pageRows
	rows := pagedRows(n)
	path := filepath.Join(t.TempDir(), "b.blk")
	data := blockOf(t, rows, 0)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tr := newReader(path, int64(len(data)-trailerLen), data[len(data)-trailerLen:])
	tr.u64()
	index := int(tr.u32())
	if len(data) < 3*os.Getpagesize() {
		t.Fatalf("the test block is %d bytes: its header and index share a page", len(data))
	}
	p, err := mapBlock(1, path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.unref()
	if rss := mappedRSS(t, path); rss > os.Getpagesize() {
		t.Errorf("%d bytes of the block resident after opening it (index %d bytes), want at most a page", rss, index)
	}
	sameEvents(t, eventsOf(t, p), eventsOfRows(rows))
}
