package store

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// WAL framing (FORMAT.md, "WAL").
const (
	walMagic      = "APLWAL"
	walVersion    = 2
	walHeaderLen  = 8
	recMagic      = "APLR"
	frameHeadLen  = 16 // version 2: magic + length + crc + headCRC
	frameHeadLen1 = 8  // version 1: length + crc
	maxRecordBody = 256 << 20
	// v1SeqWindow bounds how far past the last intact seq a version 1
	// record found again after damage may be numbered: v1 records have no
	// magic, so the seq is what makes a false match at a random offset
	// practically impossible before the CRC is even computed.
	v1SeqWindow = 1 << 20
)

// walHeader returns a segment's 8-byte header.
func walHeader() []byte {
	return append([]byte(walMagic), walVersion, 0)
}

// appendFrame appends one record (seq + payload) to b.
func appendFrame(b []byte, seq uint64, payload []byte) []byte {
	return append(appendFrameHeader(b, seq, payload), payload...)
}

// appendFrameHeader appends what precedes payload in its record (magic,
// length, CRCs, seq), so a large payload can be written from where it is.
func appendFrameHeader(b []byte, seq uint64, payload []byte) []byte {
	var s [8]byte
	binary.LittleEndian.PutUint64(s[:], seq)
	sum := crc32.Update(crc32.Checksum(s[:], castagnoli), castagnoli, payload)
	start := len(b)
	b = append(b, recMagic...)
	b = putU32(b, uint32(8+len(payload)))
	b = putU32(b, sum)
	b = putU32(b, crc(b[start:]))
	return append(b, s[:]...)
}

// walFile is the part of *os.File a WAL segment uses (tests wrap it to
// inject a full disk).
type walFile interface {
	Write(b []byte) (int, error)
	Sync() error
	Truncate(size int64) error
	Close() error
}

// walGap is a run of damaged bytes in a segment followed by an intact
// record: acknowledged records were lost there.
type walGap struct {
	from, to int
	reason   string
	next     uint64 // seq of the intact record at to
}

// walScan is what scanWAL found in one segment.
type walScan struct {
	// valid is where the segment's torn tail starts (len(data) when none).
	valid int
	// damage lists the bad runs with intact records after them.
	damage []walGap
	// tail says why the bytes from valid on were rejected; nil when the
	// segment ends cleanly.
	tail *CorruptionError
}

// keep returns data without its damage and torn tail: the segment as it
// should be rewritten.
func (s walScan) keep(data []byte) []byte {
	out := make([]byte, 0, s.valid)
	at := 0
	if len(s.damage) > 0 && s.damage[0].from == 0 { // the header itself was damaged
		out = walHeader()
	}
	for _, g := range s.damage {
		out = append(out, data[at:g.from]...)
		at = g.to
	}
	return append(out, data[at:s.valid]...)
}

// scanWAL walks the records of one segment's bytes, calling fn for each
// intact one (payload aliases data; fn returning false rejects the record
// as damaged). After a bad record it searches for the next intact one, so
// damage in the middle of a segment costs only the records it hit.
// lastSeq is the seq of the last record before the segment (0 unknown);
// a record found again after damage must be numbered above it.
func scanWAL(file string, data []byte, lastSeq uint64, fn func(seq uint64, payload []byte, off int64) bool) walScan {
	var out walScan
	tail := func(off int, reason string) walScan {
		out.valid = off
		out.tail = &CorruptionError{File: file, Offset: int64(off), Reason: reason}
		return out
	}
	if len(data) < walHeaderLen {
		return tail(0, "segment shorter than its header")
	}
	v := int(data[6]) | int(data[7])<<8
	sc := frameScanner{data: data, v1: v == 1}
	off := walHeaderLen
	if reason := headerFault(data); reason != "" {
		// A damaged header in front of intact (current version) records
		// is damage like any other; with none after it, a torn start.
		sc.v1 = false
		next, seq := sc.find(walHeaderLen, lastSeq)
		if next < 0 {
			return tail(0, reason)
		}
		out.damage = append(out.damage, walGap{from: 0, to: next, reason: reason, next: seq})
		off = next
	}
	for off < len(data) {
		seq, body, size, reason := sc.record(off)
		if reason == "" && !fn(seq, body, int64(off+size-len(body))) {
			reason = "record payload rejected"
		}
		if reason == "" {
			lastSeq = max(lastSeq, seq)
			off += size
			continue
		}
		next, seq := sc.find(off+1, lastSeq)
		if next < 0 {
			return tail(off, reason)
		}
		out.damage = append(out.damage, walGap{from: off, to: next, reason: reason, next: seq})
		off = next
	}
	out.valid = off
	return out
}

// headerFault says what is wrong with a segment's header, or "".
func headerFault(data []byte) string {
	if string(data[:6]) != walMagic {
		return "bad WAL magic"
	}
	if v := int(data[6]) | int(data[7])<<8; v != 1 && v != walVersion {
		return "unsupported WAL version"
	}
	return ""
}

// frameScanner reads the records of one segment of either version.
type frameScanner struct {
	data []byte
	v1   bool
}

// record parses the record at off: its seq, payload, whole size, or why
// it is bad.
func (s frameScanner) record(off int) (seq uint64, payload []byte, size int, reason string) {
	data := s.data
	head := frameHeadLen
	if s.v1 {
		head = frameHeadLen1
	}
	if len(data)-off < head {
		return 0, nil, 0, "torn record header"
	}
	h := data[off:]
	if !s.v1 {
		if string(h[:4]) != recMagic {
			return 0, nil, 0, "bad record magic"
		}
		if crc(h[:12]) != binary.LittleEndian.Uint32(h[12:]) {
			return 0, nil, 0, "record header checksum mismatch"
		}
		h = h[4:]
	}
	n := int(binary.LittleEndian.Uint32(h))
	sum := binary.LittleEndian.Uint32(h[4:])
	if n < 8 || n > maxRecordBody {
		return 0, nil, 0, "record length out of range"
	}
	if n > len(data)-off-head {
		return 0, nil, 0, "record extends past end of segment"
	}
	body := data[off+head : off+head+n]
	if crc(body) != sum {
		return 0, nil, 0, "record checksum mismatch"
	}
	return binary.LittleEndian.Uint64(body), body[8:], head + n, ""
}

// find returns the offset and seq of the first intact record at or after
// from numbered above lastSeq, or -1.
func (s frameScanner) find(from int, lastSeq uint64) (int, uint64) {
	plausible := func(seq uint64) bool {
		if seq <= lastSeq {
			return false
		}
		return !s.v1 || seq-lastSeq <= v1SeqWindow || lastSeq == 0 && seq < 1<<40
	}
	if !s.v1 {
		for from < len(s.data) {
			i := bytes.Index(s.data[from:], []byte(recMagic))
			if i < 0 {
				return -1, 0
			}
			off := from + i
			if seq, _, _, reason := s.record(off); reason == "" && plausible(seq) {
				return off, seq
			}
			from = off + 1
		}
		return -1, 0
	}
	for off := from; off+frameHeadLen1+8 <= len(s.data); off++ {
		n := int(binary.LittleEndian.Uint32(s.data[off:]))
		if n < 8 || n > len(s.data)-off-frameHeadLen1 {
			continue
		}
		// Cheap tests before the CRC, which is over the whole body: the
		// seq follows the last one, and the record ends at the end of the
		// segment or where one numbered next begins.
		seq := binary.LittleEndian.Uint64(s.data[off+frameHeadLen1:])
		end := off + frameHeadLen1 + n
		if !plausible(seq) || end != len(s.data) && (end+frameHeadLen1+8 > len(s.data) ||
			binary.LittleEndian.Uint64(s.data[end+frameHeadLen1:]) != seq+1) {
			continue
		}
		if seq, _, _, reason := s.record(off); reason == "" {
			return off, seq
		}
	}
	return -1, 0
}
