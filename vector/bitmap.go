package vector

import "math/bits"

// Bitmap is a dense bit set, one bit per row, used for validity (1 = the
// row holds a value) and for filter results that cross batch boundaries.
type Bitmap []uint64

// NewBitmap returns a bitmap for n rows with every bit clear.
func NewBitmap(n int) Bitmap { return make(Bitmap, (n+63)/64) }

// NewBitmapSet returns a bitmap for n rows with every bit set.
func NewBitmapSet(n int) Bitmap {
	b := NewBitmap(n)
	for i := range b {
		b[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		b[len(b)-1] = (1 << r) - 1
	}
	return b
}

// Get reports whether bit i is set.
func (b Bitmap) Get(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// Set sets bit i.
func (b Bitmap) Set(i int) { b[i>>6] |= 1 << (uint(i) & 63) }

// Clear clears bit i.
func (b Bitmap) Clear(i int) { b[i>>6] &^= 1 << (uint(i) & 63) }

// Count returns the number of set bits.
func (b Bitmap) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Grow returns a bitmap that can hold n bits, keeping the bits of b.
func (b Bitmap) Grow(n int) Bitmap {
	w := (n + 63) / 64
	if w <= len(b) {
		return b
	}
	if w <= cap(b) {
		return b[:w]
	}
	nb := make(Bitmap, w, 2*w)
	copy(nb, b)
	return nb
}
