package vector

import (
	"cmp"
	"math"
	"math/rand"
	"testing"
)

// kernelRows is the length of the random columns the kernel tests use.
const kernelRows = 1000

// randInts returns random longs with the edge cases the engine defines:
// zeros (division by zero is null), -1 and the extremes (overflow wraps).
func randInts(r *rand.Rand) []int64 {
	edge := []int64{0, -1, 1, math.MinInt64, math.MaxInt64}
	out := make([]int64, kernelRows)
	for i := range out {
		if r.Intn(4) == 0 {
			out[i] = edge[r.Intn(len(edge))]
		} else {
			out[i] = r.Int63n(2001) - 1000
		}
	}
	return out
}

// randFloats returns random reals with zeros, NaN and infinities.
func randFloats(r *rand.Rand) []float64 {
	edge := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1}
	out := make([]float64, kernelRows)
	for i := range out {
		if r.Intn(4) == 0 {
			out[i] = edge[r.Intn(len(edge))]
		} else {
			out[i] = float64(r.Intn(41)-20) / 4
		}
	}
	return out
}

// randSel returns an ascending random selection of about a third of the rows.
func randSel(r *rand.Rand) []int32 {
	var sel []int32
	for i := 0; i < kernelRows; i++ {
		if r.Intn(3) == 0 {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// randValid returns a validity bitmap with about a tenth of the rows null.
func randValid(r *rand.Rand) Bitmap {
	v := NewBitmapSet(kernelRows)
	for i := 0; i < kernelRows; i++ {
		if r.Intn(10) == 0 {
			v.Clear(i)
		}
	}
	return v
}

// intRef is the engine's long arithmetic, one row at a time: Go's
// wrapping arithmetic, and null (ok false) for a zero divisor.
func intRef(op string, a, b int64) (int64, bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	}
	if b == 0 {
		return 0, false
	}
	if op == "/" {
		return a / b, true
	}
	return a % b, true
}

// floatRef is the engine's real arithmetic: IEEE, never null.
func floatRef(op string, a, b float64) float64 {
	switch op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/":
		return a / b
	}
	return math.Mod(a, b)
}

// operands returns the (left, right) value of row i for a shape: VV
// reads both columns, VC a column and k, CV k and a column.
func operands[T any](shape string, l, r []T, k T, i int) (T, T) {
	switch shape {
	case "VC":
		return l[i], k
	case "CV":
		return k, r[i]
	}
	return l[i], r[i]
}

// runArithShape runs the dense or selective kernel of one shape.
func runArithShape[T int64 | float64](k ArithKernels[T], shape string, l, r []T, kc T, sel []int32, out []T, valid Bitmap) Bitmap {
	switch {
	case shape == "VV" && sel == nil:
		return k.VV(l, r, out, valid)
	case shape == "VV":
		return k.VVSel(l, r, sel, out, valid)
	case shape == "VC" && sel == nil:
		return k.VC(l, kc, out, valid)
	case shape == "VC":
		return k.VCSel(l, kc, sel, out, valid)
	case sel == nil:
		return k.CV(kc, r, out, valid)
	}
	return k.CVSel(kc, r, sel, out, valid)
}

var shapesUnderTest = []string{"VV", "VC", "CV"}

// Every long arithmetic kernel computes the engine's arithmetic on every
// row (dense) or on the selected rows only (selective): the selective one
// leaves the other rows of out and their validity bits as they were, and
// on the selected rows equals the dense one.
func TestArithInt64Kernels(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	l, rr, sel := randInts(r), randInts(r), randSel(r)
	for op, k := range ArithInt64 {
		for _, shape := range shapesUnderTest {
			for _, kc := range []int64{0, -1, 7, math.MinInt64} {
				valid := randValid(r)
				dense := make([]int64, kernelRows)
				dv := runArithShape(k, shape, l, rr, kc, nil, dense, valid.clone())
				const sentinel = 0x5eed
				selOut := make([]int64, kernelRows)
				for i := range selOut {
					selOut[i] = sentinel
				}
				sv := runArithShape(k, shape, l, rr, kc, sel, selOut, valid.clone())
				live := 0
				for i := 0; i < kernelRows; i++ {
					a, b := operands(shape, l, rr, kc, i)
					want, ok := intRef(op, a, b)
					if got := dv == nil || dv.Get(i); got != (ok && valid.Get(i)) {
						t.Fatalf("%s %s k=%d row %d (%d, %d): dense validity %v", op, shape, kc, i, a, b, got)
					}
					if ok && dense[i] != want {
						t.Fatalf("%s %s k=%d row %d (%d, %d): dense %d, want %d", op, shape, kc, i, a, b, dense[i], want)
					}
					isLive := live < len(sel) && int(sel[live]) == i
					if !isLive {
						if selOut[i] != sentinel || (sv != nil && sv.Get(i) != valid.Get(i)) {
							t.Fatalf("%s %s k=%d: the selective kernel wrote dead row %d", op, shape, kc, i)
						}
						continue
					}
					live++
					if (sv == nil || sv.Get(i)) != (dv == nil || dv.Get(i)) || (ok && selOut[i] != dense[i]) {
						t.Fatalf("%s %s k=%d live row %d: selective %d, dense %d", op, shape, kc, i, selOut[i], dense[i])
					}
				}
			}
		}
	}
}

// The real arithmetic kernels, likewise; NaN compares as itself.
func TestArithFloat64Kernels(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	l, rr, sel := randFloats(r), randFloats(r), randSel(r)
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	for op, k := range ArithFloat64 {
		for _, shape := range shapesUnderTest {
			for _, kc := range []float64{0, 2.5, math.NaN()} {
				dense := make([]float64, kernelRows)
				if v := runArithShape(k, shape, l, rr, kc, nil, dense, nil); v != nil {
					t.Fatalf("%s %s: a real kernel made rows null", op, shape)
				}
				selOut := make([]float64, kernelRows)
				for i := range selOut {
					selOut[i] = -42
				}
				runArithShape(k, shape, l, rr, kc, sel, selOut, nil)
				live := 0
				for i := 0; i < kernelRows; i++ {
					a, b := operands(shape, l, rr, kc, i)
					if want := floatRef(op, a, b); !same(dense[i], want) {
						t.Fatalf("%s %s row %d (%v, %v): dense %v, want %v", op, shape, i, a, b, dense[i], want)
					}
					if live < len(sel) && int(sel[live]) == i {
						live++
						if !same(selOut[i], dense[i]) {
							t.Fatalf("%s %s live row %d: selective %v, dense %v", op, shape, i, selOut[i], dense[i])
						}
					} else if selOut[i] != -42 {
						t.Fatalf("%s %s: the selective kernel wrote dead row %d", op, shape, i)
					}
				}
			}
		}
	}
}

// cmpHolds is the comparison's answer for a three-way result.
func cmpHolds(op string, c int) bool {
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// ieeeHolds is a real comparison with the IEEE operators (NaN unordered).
func ieeeHolds(op string, a, b float64) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

// checkCmp checks the six kernels of one comparison: the dense ones
// against want, the selective ones against the dense ones on live rows
// and untouched (still true) on dead ones.
func checkCmp[T int64 | float64 | string](t *testing.T, name string, k CmpKernels[T], l, r []T, kc T, sel []int32, want func(shape string, i int) bool) {
	t.Helper()
	for _, shape := range shapesUnderTest {
		dense, selOut := make([]bool, kernelRows), make([]bool, kernelRows)
		for i := range selOut {
			selOut[i] = true
		}
		switch shape {
		case "VV":
			k.VV(l, r, dense)
			k.VVSel(l, r, sel, selOut)
		case "VC":
			k.VC(l, kc, dense)
			k.VCSel(l, kc, sel, selOut)
		default:
			k.CV(kc, r, dense)
			k.CVSel(kc, r, sel, selOut)
		}
		live := 0
		for i := 0; i < kernelRows; i++ {
			if dense[i] != want(shape, i) {
				t.Fatalf("%s %s row %d: dense %v", name, shape, i, dense[i])
			}
			if live < len(sel) && int(sel[live]) == i {
				live++
				if selOut[i] != dense[i] {
					t.Fatalf("%s %s live row %d: selective %v, dense %v", name, shape, i, selOut[i], dense[i])
				}
			} else if !selOut[i] {
				t.Fatalf("%s %s: the selective kernel wrote dead row %d", name, shape, i)
			}
		}
	}
}

// Every comparison kernel agrees with a plain comparison: longs and
// strings as Go orders them, reals with the IEEE operators against a
// constant and cmp.Compare's total order (NaN equal to NaN, below
// everything) otherwise, as the engine always has.
func TestCmpKernels(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	li, ri := randInts(r), randInts(r)
	lf, rf := randFloats(r), randFloats(r)
	words := []string{"", "a", "ab", "b", "B", "é"}
	ls, rs := make([]string, kernelRows), make([]string, kernelRows)
	for i := range ls {
		ls[i], rs[i] = words[r.Intn(len(words))], words[r.Intn(len(words))]
	}
	sel := randSel(r)
	for _, op := range []string{"==", "!=", "<", "<=", ">", ">="} {
		checkCmp(t, "long "+op, CmpInt64[op], li, ri, 3, sel, func(shape string, i int) bool {
			a, b := operands(shape, li, ri, 3, i)
			return cmpHolds(op, cmp.Compare(a, b))
		})
		for _, kc := range []float64{0.5, math.NaN()} {
			checkCmp(t, "real "+op, CmpFloat64[op], lf, rf, kc, sel, func(shape string, i int) bool {
				a, b := operands(shape, lf, rf, kc, i)
				if shape == "VC" {
					return ieeeHolds(op, a, b)
				}
				return cmpHolds(op, cmp.Compare(a, b))
			})
		}
		checkCmp(t, "string "+op, CmpString[op], ls, rs, "ab", sel, func(shape string, i int) bool {
			a, b := operands(shape, ls, rs, "ab", i)
			return cmpHolds(op, cmp.Compare(a, b))
		})
	}
}

// clone copies a bitmap so two kernel runs start from the same bits.
func (b Bitmap) clone() Bitmap { return append(Bitmap(nil), b...) }

// BenchmarkArithKernel is a long + over one batch: the dense kernel, and
// the selective one at 50% and 1.5% of the rows live (the where
// status == 500). rows/s counts the batch's rows, live or not, so the
// selective figures show what skipping dead rows saves.
func BenchmarkArithKernel(b *testing.B) {
	r := rand.New(rand.NewSource(5))
	l, rr := make([]int64, BatchSize), make([]int64, BatchSize)
	for i := range l {
		l[i], rr[i] = r.Int63n(1000), r.Int63n(1000)
	}
	k := ArithInt64["+"]
	out := make([]int64, BatchSize)
	for _, c := range []struct {
		name  string
		every int
	}{{"dense", 0}, {"sel50%", 2}, {"sel1.5%", 66}} {
		var sel []int32
		for i := 0; c.every > 0 && i < BatchSize; i += c.every {
			sel = append(sel, int32(i))
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(BatchSize * 16)
			b.ReportAllocs()
			for b.Loop() {
				if sel == nil {
					k.VV(l, rr, out, nil)
				} else {
					k.VVSel(l, rr, sel, out, nil)
				}
			}
			b.ReportMetric(float64(BatchSize)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
