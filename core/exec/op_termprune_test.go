package exec

import (
	"testing"
	"unicode"
)

// in~ prunes with a needle's own terms because lower-casing a rune twice
// gives what lowering it once does (and so the same terms): checked
// over all of Unicode, as the tables of this Go release define it.
func TestLowerIsIdempotent(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); unicode.ToLower(l) != l || termRune(l) != termRune(r) {
			t.Fatalf("rune %U: lower %U, lowered again %U; term rune %v, lowered %v", r, l, unicode.ToLower(l), termRune(r), termRune(l))
		}
	}
}
