package exec

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// has_cs of a rare word looks for its rarest byte, not for its first two
// bytes word by word; a folded needle looks for a byte without case only.
func TestRareBytePicked(t *testing.T) {
	cases := []struct {
		needle string
		fold   bool
		want   byte // 0: the word scan
	}{
		{"deadlock", false, 'k'},
		{"Deadlock", false, 'D'},
		{"status=504", false, 'u'},
		{"deadlock", true, 0},
		{"status=504", true, '='},
		{"see", false, 0},
		{"test", false, 0},
	}
	for _, c := range cases {
		f := newExactTerm(c.needle, termWhole)
		if c.fold {
			f = newFoldTerm(c.needle, termWhole)
		}
		got := byte(0)
		if f.useRare {
			got = f.rare
			if c.needle[f.rareAt] != got {
				t.Errorf("%q: rare byte %q is not the needle's byte at %d", c.needle, got, f.rareAt)
			}
		}
		if got != c.want {
			t.Errorf("%q (fold %v) looks for %q, want %q", c.needle, c.fold, got, c.want)
		}
	}
}

// The rare byte's scan and the word scan give the same answers over
// realistic messages, for needles cut from them (words, parts of words,
// key=value pairs, digits) in every mode, either case; fill switches
// between them within a batch and must not change an answer.
func TestRareByteMatchesWordScan(t *testing.T) {
	msgs := genMessages(1024)
	r := rand.New(rand.NewPCG(29, 1))
	for range 200 {
		m := msgs[r.IntN(len(msgs))]
		lo := r.IntN(len(m))
		needle := m[lo : lo+min(len(m)-lo, 1+r.IntN(12))]
		if !isASCII(needle) {
			continue
		}
		for mode := range termModes {
			for _, f := range []*foldTerm{newExactTerm(needle, mode), newFoldTerm(needle, mode)} {
				if f.mode == termAny && f.fold == 0 {
					continue
				}
				words := *f
				words.useRare = false
				got, want := make([]bool, len(msgs)), make([]bool, len(msgs))
				f.fill(msgs, nil, false, got)
				words.fill(msgs, nil, false, want)
				for i := range msgs {
					if got[i] != want[i] {
						t.Fatalf("%q %s %q (fold %v): rare byte %v, word scan %v",
							msgs[i], termModes[mode], needle, f.fold != 0, got[i], want[i])
					}
				}
			}
		}
	}
}

// A byte the table takes for rare but that fills the texts turns the
// rare byte's scan off for the rest of the batch, with the same answers.
func TestRareMeterTurnsOff(t *testing.T) {
	m := rareMeter{on: true}
	for range 100 {
		m.note(100, 1) // one stop in 100 bytes pays
	}
	if !m.on {
		t.Fatal("one stop in 100 bytes turned the rare byte's scan off")
	}
	for range 400 {
		m.note(100, 10) // one stop in ten bytes does not
	}
	if m.on {
		t.Fatal("one stop in ten bytes kept the rare byte's scan on")
	}
	texts := make([]string, 2000)
	for i := range texts {
		texts[i] = strings.Repeat("zz ", 40)
		if i%7 == 0 {
			texts[i] += " qqqz"
		}
	}
	f := newExactTerm("qqqz", termWhole)
	if !f.useRare || f.rare != 'z' {
		t.Fatalf("qqqz looks for %q (use %v)", f.rare, f.useRare)
	}
	out := make([]bool, len(texts))
	f.fill(texts, nil, false, out)
	for i, got := range out {
		if want := i%7 == 0; got != want {
			t.Fatalf("row %d: has_cs qqqz = %v, want %v", i, got, want)
		}
	}
}
