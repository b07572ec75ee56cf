package core

import (
	"math/rand/v2"
	"testing"
)

// The fast fold agrees with hasTerm on random texts and needles, for
// every mode.
func TestHasTermFoldAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "B", "c", "-", "_", " ", "1", "é", "K", ".", "ab", "AB"}
	word := func(n int) string {
		s := ""
		for i := 0; i < n; i++ {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for i := 0; i < 200000; i++ {
		text, needle := word(r.IntN(12)), word(1+r.IntN(3))
		if !isASCII(needle) {
			continue
		}
		for _, mode := range []int{termWhole, termPrefix, termSuffix} {
			want := hasTerm(text, needle, false, mode)
			if got := hasTermFold(text, lowerString(needle), mode); got != want {
				t.Fatalf("mode %d: hasTermFold(%q, %q) = %v, hasTerm %v", mode, text, needle, got, want)
			}
		}
	}
}

func lowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func BenchmarkHasTerm(b *testing.B) {
	text := "2024-03-01T12:00:00Z ERROR payment-service request 7f3a timed out after 3000ms waiting for upstream db-primary; retrying (attempt 2 of 5)"
	b.Run("generic", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			hasTerm(text, "deadlock", false, termWhole)
		}
	})
	b.Run("fold", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			hasTermFold(text, "deadlock", termWhole)
		}
	})
}
