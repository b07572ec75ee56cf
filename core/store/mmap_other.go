//go:build !unix && !js

package store

import (
	"fmt"
	"os"
)

// mmapFile reads path into memory where mmap is unavailable; the bytes
// then belong to the garbage collector.
func mmapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(data) == 0 {
		return nil, nil, &CorruptionError{File: path, Reason: fmt.Sprintf("block file size %d", 0)}
	}
	return data, func() error { return nil }, nil
}
