//go:build !linux

package main

// mapFile is the mapped read of cmd_query_mmap_linux.go; elsewhere the
// file is read.
func mapFile(string) ([]byte, func()) { return nil, nil }

// dropMapped is never called where mapFile maps nothing.
func dropMapped([]byte) {}
