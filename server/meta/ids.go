package meta

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a random identifier in the UUID text form the service uses
// for users, tokens and most resources.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}

// NewShortID returns prefix followed by 20 random base-36 characters, the
// form of annotation ids ("ann_…") and similar.
func NewShortID(prefix string) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [20]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b[:])
}
