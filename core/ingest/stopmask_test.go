package ingest

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// firstStop is stopMask's definition, a byte at a time: the index of the
// first '"', '\\' or control byte of the word's eight bytes, or 8.
func firstStop(w [8]byte) int {
	for i, c := range w {
		if c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return 8
}

func checkStopMask(t *testing.T, w [8]byte) {
	t.Helper()
	got := 8
	if m := stopMask(binary.LittleEndian.Uint64(w[:])); m != 0 {
		got = bits.TrailingZeros64(m) >> 3
	}
	if want := firstStop(w); got != want {
		t.Fatalf("stopMask(%q) finds byte %d, want %d", w, got, want)
	}
}

// Every byte value at every position, behind plain bytes and in front of
// the bytes most likely to disturb a borrow, and random words heavy in
// the bytes around the ones it looks for.
func TestStopMask(t *testing.T) {
	fills := []byte{'a', ' ', '!', '#', 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa1, 0xff}
	for _, fill := range fills {
		for _, after := range []byte{0, '"', '\\', 0x1f, 0xff, fill} {
			for pos := range 8 {
				for c := range 256 {
					var w [8]byte
					for i := range w {
						w[i] = fill
						if i > pos {
							w[i] = after
						}
					}
					w[pos] = byte(c)
					checkStopMask(t, w)
				}
			}
		}
	}
	near := []byte{0, 1, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xa0, 0xa1, 0xa2, 0xdc, 0xff, 'a'}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		for i := range w {
			if r.IntN(2) == 0 {
				w[i] = near[r.IntN(len(near))]
			} else {
				w[i] = byte(r.IntN(256))
			}
		}
		checkStopMask(t, w)
	}
}

// stop and plain agree with a byte loop on strings of every length and
// stop byte position, so the word steps and the byte tail meet.
func TestStopAndPlain(t *testing.T) {
	for n := range 40 {
		for pos := 0; pos <= n; pos++ {
			for _, c := range []byte{'"', '\\', 0, 0x1f, 'x'} {
				buf := make([]byte, n)
				for i := range buf {
					buf[i] = byte('a' + i%26)
				}
				if n > 3 {
					buf[1] = 0xc3 // non-ASCII before the stop
				}
				if pos < n {
					buf[pos] = c
				}
				want, hi := n, false
				for i := range buf {
					if c := buf[i]; c == '"' || c == '\\' || c < 0x20 {
						want = i
						break
					}
					hi = hi || buf[i] >= 0x80
				}
				if got := stop(buf, 0); got != want {
					t.Fatalf("stop(%q) = %d, want %d", buf, got, want)
				}
				if got, gotHi := plain(buf, 0); got != want || gotHi != hi {
					t.Fatalf("plain(%q) = %d, %v; want %d, %v", buf, got, gotHi, want, hi)
				}
			}
		}
	}
}
