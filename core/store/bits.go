package store

import (
	"encoding/binary"
	"math/bits"
)

// widthOf returns the number of bits needed to hold x.
func widthOf(x uint64) int { return bits.Len64(x) }

// putPacked appends packed(n) of vals at width w (see FORMAT.md): a width
// byte, then the values LSB-first in a little-endian bit stream.
func putPacked(dst []byte, vals []uint64, w int) []byte {
	dst = append(dst, byte(w))
	if w == 0 {
		return dst
	}
	nbytes := (len(vals)*w + 7) / 8
	start := len(dst)
	dst = append(dst, make([]byte, nbytes)...)
	out := dst[start:]
	switch w {
	case 8:
		for i, v := range vals {
			out[i] = byte(v)
		}
		return dst
	case 16:
		for i, v := range vals {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
		}
		return dst
	}
	var acc uint64 // pending bits
	var nacc int   // how many bits of acc are pending
	o := 0
	for _, v := range vals {
		if w < 64 {
			v &= 1<<uint(w) - 1
		}
		acc |= v << uint(nacc)
		if nacc+w >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			spill := nacc + w - 64
			if spill > 0 {
				acc = v >> uint(w-spill)
			} else {
				acc = 0
			}
			nacc = spill
		} else {
			nacc += w
		}
	}
	for nacc > 0 {
		out[o] = byte(acc)
		o++
		acc >>= 8
		nacc -= 8
	}
	return dst
}

// packedLen is the encoded size of packed(n) at width w.
func packedLen(n, w int) int { return 1 + (n*w+7)/8 }

// readPacked decodes packed(n) into dst (len n).
func (r *reader) readPacked(dst []uint64) {
	w := int(r.u8())
	if r.err != nil {
		return
	}
	if w > 64 {
		r.fail("packed width over 64")
		return
	}
	n := len(dst)
	if w == 0 {
		clear(dst)
		return
	}
	nbytes := (n*w + 7) / 8
	if n > 0 && nbytes/n > 8 { // overflow guard for absurd n
		r.fail("packed length overflow")
		return
	}
	in := r.take(nbytes)
	if r.err != nil {
		return
	}
	unpack(dst, in, w)
}

// unpack decodes n values of width w from in, which holds exactly
// ceil(n*w/8) bytes.
func unpack(dst []uint64, in []byte, w int) {
	switch w {
	case 8:
		for i := range dst {
			dst[i] = uint64(in[i])
		}
		return
	case 16:
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint16(in[2*i:]))
		}
		return
	}
	mask := ^uint64(0)
	if w < 64 {
		mask = 1<<uint(w) - 1
	}
	bit := 0
	for i := range dst {
		byteOff := bit >> 3
		shift := uint(bit & 7)
		var word uint64
		if byteOff+8 <= len(in) {
			word = binary.LittleEndian.Uint64(in[byteOff:])
		} else {
			var tmp [8]byte
			copy(tmp[:], in[byteOff:])
			word = binary.LittleEndian.Uint64(tmp[:])
		}
		v := word >> shift
		if int(shift)+w > 64 { // the value straddles the 8-byte window
			var next byte
			if byteOff+8 < len(in) {
				next = in[byteOff+8]
			}
			v |= uint64(next) << (64 - shift)
		}
		dst[i] = v & mask
		bit += w
	}
}
