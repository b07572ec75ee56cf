//go:build linux

package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/aplite/aplite/internal/testutil"
)

// A column span handed out of a mapped block whose file is out of the
// page cache (the first query after a restart) is being read in whole
// before the decoder touches it, not page fault by page fault.
func TestMappedSpanIsReadAhead(t *testing.T) {
	rows := pagedRows(40 * pageRows)
	path := filepath.Join(t.TempDir(), "b.blk")
	if err := os.WriteFile(path, blockOf(t, rows, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	p, err := mapBlock(1, path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.unref()
	// Opening read the index, and the kernel read around it: unmap the
	// pages, then drop them from the page cache.
	dropPages(p.data)
	const fadvDontNeed = 4
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); e != 0 {
		t.Skipf("fadvise: %v", e)
	}
	c := p.idx.cols[p.byKey[msgKey]]
	whole := p.data[c.off : c.off+c.size]
	if got := residentShare(t, whole); got > 0.5 {
		t.Skipf("the kernel kept %.0f%% of the column's pages after fadvise (tmpfs?): nothing to read ahead", got*100)
	}
	span, err := p.span(c, 0, c.size)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, func() bool { return residentShare(t, span) >= 0.9 },
		"the column's pages are not being read in: %.0f%% resident", residentShare(t, span)*100)
}

// residentShare is the part of b's pages in the page cache (mincore).
func residentShare(t *testing.T, b []byte) float64 {
	t.Helper()
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := start &^ (pageSize - 1)
	n := (start - lo + uintptr(len(b)) + pageSize - 1) / pageSize
	vec := make([]byte, n)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, lo, start-lo+uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	in := 0
	for _, v := range vec {
		in += int(v & 1)
	}
	return float64(in) / float64(n)
}

// Opening a block whose file is out of the page cache reads its header
// and index, not the columns around them: the kernel's read-around (8 MB
// on this machine's disk) pulled in most of the block at every open.
func TestOpeningBlockReadsOnlyItsIndex(t *testing.T) {
	rows := pagedRows(40 * pageRows)
	path := filepath.Join(t.TempDir(), "b.blk")
	if err := os.WriteFile(path, blockOf(t, rows, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	const fadvDontNeed = 4
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); e != 0 {
		t.Skipf("fadvise: %v", e)
	}
	p, err := mapBlock(1, path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.unref()
	c := p.idx.cols[p.byKey[msgKey]]
	if got := residentShare(t, p.data[c.off:c.off+c.size]); got > 0.1 {
		t.Errorf("%.0f%% of a column no query read is in the page cache after opening its block", got*100)
	}
}
