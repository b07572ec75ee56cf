package fn

// series_fft and series_ifft. series_fft(real [, imag]) returns
// [real_parts, imag_parts], which is the shape Axiom's series_ifft page
// relies on (series_ifft(series_fft(x)[0], series_fft(x)[1])).
// series_ifft(real [, imag]) returns the real part of the inverse
// transform, the reconstructed signal. The inverse is scaled by 1/n so the
// round trip is the identity. Any length works: powers of two use
// radix-2 Cooley-Tukey, other lengths Bluestein's algorithm on top of it,
// so a transform is O(n log n) either way.

import (
	"math"
	"math/bits"
	"math/cmplx"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "series_fft", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: Sig("series_fft", vector.Dynamic, KDyn, KDyn), Eval: evalSeriesFFT(false),
		Doc: "Discrete Fourier transform of a series (optionally with an imaginary part): [real parts, imaginary parts]."})
	Register(&Func{Name: "series_ifft", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: Sig("series_ifft", vector.Dynamic, KDyn, KDyn), Eval: evalSeriesFFT(true),
		Doc: "Inverse Fourier transform of real and imaginary parts: the real part of the signal."})
}

func evalSeriesFFT(inverse bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			re, ok := arrAt(args[0], i)
			if !ok {
				return nil, false
			}
			var im []any
			if len(args) > 1 && !args[1].IsNull(i) {
				if im, ok = arrAt(args[1], i); !ok || len(im) != len(re) {
					return nil, false
				}
			}
			x := make([]complex128, len(re))
			for j := range re {
				r, ok := arrNum(re[j])
				if !ok {
					return nil, false
				}
				var m float64
				if im != nil {
					if m, ok = arrNum(im[j]); !ok {
						return nil, false
					}
				}
				x[j] = complex(r, m)
			}
			y := serDFT(x, inverse)
			reOut := make([]any, len(y))
			imOut := make([]any, len(y))
			for j, c := range y {
				reOut[j], imOut[j] = serFloat(real(c)), serFloat(imag(c))
			}
			if inverse {
				return reOut, true
			}
			return []any{reOut, imOut}, true
		}), nil
	}
}

// serDFT returns the discrete Fourier transform of x (e^{-2πijk/n}), or
// its inverse (e^{+2πijk/n}, scaled by 1/n).
func serDFT(x []complex128, inverse bool) []complex128 {
	n := len(x)
	var y []complex128
	switch {
	case n == 0:
		return nil
	case n&(n-1) == 0:
		y = append([]complex128(nil), x...)
		serFFTPow2(y, inverse)
	default:
		y = serBluestein(x, inverse)
	}
	if inverse {
		for j := range y {
			y[j] /= complex(float64(n), 0)
		}
	}
	return y
}

// serFFTPow2 transforms x in place; len(x) must be a power of two. The
// inverse is unscaled.
func serFFTPow2(x []complex128, inverse bool) {
	n := len(x)
	if n < 2 {
		return
	}
	shift := 64 - bits.Len(uint(n-1))
	for i := range x {
		if j := int(bits.Reverse64(uint64(i)) >> shift); j > i {
			x[i], x[j] = x[j], x[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Rect(1, sign*2*math.Pi/float64(size))
		for start := 0; start < n; start += size {
			t := complex(1, 0)
			for k := 0; k < size/2; k++ {
				a, b := x[start+k], x[start+k+size/2]*t
				x[start+k], x[start+k+size/2] = a+b, a-b
				t *= w
			}
		}
	}
}

// serBluestein computes an arbitrary-length DFT (unscaled) as a
// convolution of power-of-two length, using j·k = (j² + k² - (k-j)²)/2.
func serBluestein(x []complex128, inverse bool) []complex128 {
	n := len(x)
	sign := -1.0
	if inverse {
		sign = 1
	}
	// chirp[k] = e^{sign·iπk²/n}; k² mod 2n keeps the angle accurate.
	chirp := make([]complex128, n)
	for k := range chirp {
		k2 := (int64(k) * int64(k)) % int64(2*n)
		chirp[k] = cmplx.Rect(1, sign*math.Pi*float64(k2)/float64(n))
	}
	m := 1 << bits.Len(uint(2*n-1))
	a := make([]complex128, m)
	b := make([]complex128, m)
	for k := 0; k < n; k++ {
		a[k] = x[k] * chirp[k]
		b[k] = cmplx.Conj(chirp[k])
		if k > 0 {
			b[m-k] = b[k]
		}
	}
	serFFTPow2(a, false)
	serFFTPow2(b, false)
	for k := range a {
		a[k] *= b[k]
	}
	serFFTPow2(a, true)
	y := make([]complex128, n)
	for k := range y {
		y[k] = a[k] / complex(float64(m), 0) * chirp[k]
	}
	return y
}
