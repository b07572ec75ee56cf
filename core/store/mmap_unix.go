//go:build unix

package store

import (
	"fmt"
	"os"
	"syscall"
)

// mmapFile maps path read-only. Block files are immutable, so a shared
// mapping never sees writes.
func mmapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, &CorruptionError{File: path, Reason: fmt.Sprintf("block file size %d", size)}
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("store: mmap %s: %w", path, err)
	}
	// No read-around on faults: opening a block reads its header and
	// index, and the kernel's readahead window (8 MB on some disks) made
	// each of those reads pull in megabytes of columns no query had asked
	// for yet. A query's column is read in whole when it is needed
	// (readAhead).
	adviseRandom(data)
	return data, func() error { return syscall.Munmap(data) }, nil
}
