package store

import (
	"encoding/binary"
	"unsafe"
)

// bytesToString views b as a string without copying. Callers own b and
// never modify it afterwards (decoders use it on freshly built heap
// arenas, never on mapped file memory).
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func leU64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
