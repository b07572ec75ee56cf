package store

import (
	"encoding/binary"
	"hash/crc32"
)

// WAL framing (FORMAT.md, "WAL").
const (
	walMagic      = "APLWAL"
	walVersion    = 1
	walHeaderLen  = 8
	frameHeadLen  = 8 // length + crc
	maxRecordBody = 256 << 20
)

// walHeader returns a segment's 8-byte header.
func walHeader() []byte {
	return append([]byte(walMagic), walVersion, 0)
}

// appendFrame appends one record (seq + payload) to b.
func appendFrame(b []byte, seq uint64, payload []byte) []byte {
	return append(appendFrameHeader(b, seq, payload), payload...)
}

// appendFrameHeader appends what precedes payload in its record (length,
// CRC, seq), so a large payload can be written from where it is.
func appendFrameHeader(b []byte, seq uint64, payload []byte) []byte {
	var s [8]byte
	binary.LittleEndian.PutUint64(s[:], seq)
	sum := crc32.Update(crc32.Checksum(s[:], castagnoli), castagnoli, payload)
	b = putU32(b, uint32(8+len(payload)))
	b = putU32(b, sum)
	return append(b, s[:]...)
}

// scanWAL walks the records of one segment's bytes, calling fn for each
// intact one, and returns the length of the valid prefix and, when it is
// shorter than data, why the rest was rejected. payload aliases data.
func scanWAL(file string, data []byte, fn func(seq uint64, payload []byte, off int64) bool) (int, *CorruptionError) {
	bad := func(off int, reason string) (int, *CorruptionError) {
		return off, &CorruptionError{File: file, Offset: int64(off), Reason: reason}
	}
	if len(data) < walHeaderLen {
		return bad(0, "segment shorter than its header")
	}
	if string(data[:6]) != walMagic {
		return bad(0, "bad WAL magic")
	}
	if v := int(data[6]) | int(data[7])<<8; v != walVersion {
		return bad(6, "unsupported WAL version")
	}
	off := walHeaderLen
	for off < len(data) {
		if len(data)-off < frameHeadLen {
			return bad(off, "torn record header")
		}
		n := int(binary.LittleEndian.Uint32(data[off:]))
		sum := binary.LittleEndian.Uint32(data[off+4:])
		if n < 8 || n > maxRecordBody {
			return bad(off, "record length out of range")
		}
		if n > len(data)-off-frameHeadLen {
			return bad(off, "record extends past end of segment")
		}
		body := data[off+frameHeadLen : off+frameHeadLen+n]
		if crc(body) != sum {
			return bad(off, "record checksum mismatch")
		}
		if !fn(binary.LittleEndian.Uint64(body), body[8:], int64(off)) {
			return bad(off, "record payload rejected")
		}
		off += frameHeadLen + n
	}
	return off, nil
}
