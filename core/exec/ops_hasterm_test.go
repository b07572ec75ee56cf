package exec

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aplite/aplite/bench/gen"
)

// termModes names the three modes for failure messages.
var termModes = map[int]string{termWhole: "has", termPrefix: "hasprefix", termSuffix: "hassuffix", termAny: "contains"}

// The fast matcher answers like hasTerm on the cases that decide a term:
// edges of the text, digits, underscores and punctuation as boundaries,
// non-ASCII letters as term runes, invalid UTF-8, case folding, and the
// two runes that lower-case to ASCII.
func TestFoldTermCases(t *testing.T) {
	cases := []struct {
		text, needle     string
		has, pre, suffix bool
	}{
		{"timeout", "timeout", true, true, true},
		{"TIMEOUT", "timeout", true, true, true},
		{"a TimeOut b", "TIMEOUT", true, true, true},
		{"timeouts", "timeout", false, true, false},
		{"xtimeout", "timeout", false, false, true},
		{"timeout2", "timeout", false, true, false},
		{"2timeout", "timeout", false, false, true},
		{"_timeout_", "timeout", true, true, true},
		{"db-timeout.", "timeout", true, true, true},
		{"timeoutß", "timeout", false, true, false},
		{"étimeout", "timeout", false, false, true},
		{"é timeout ß", "timeout", true, true, true},
		{"\xfftimeout\xff", "timeout", true, true, true},
		{"\xc3timeout", "timeout", true, true, true},
		{"request timed out after 3000ms waiting", "timeout", false, false, false},
		{"a long message of more than sixteen bytes ending in timeout", "timeout", true, true, true},
		{"a long message of more than sixteen bytes ending in timeou", "timeout", false, false, false},
		{"tİmeout", "timeout", true, true, true},
		{"xtİmeout", "timeout", false, false, true},
		{"\u212aill -9", "kill", true, true, true},
		{"\u212a", "k", true, true, true},
		{"status=504 x", "504", true, true, true},
		{"a-b", "a-b", true, true, true},
		{"xa-bx", "a-b", false, false, false},
		{"t", "timeout", false, false, false},
		{"", "t", false, false, false},
		{"\r", "-", false, false, false},
	}
	contains := map[[2]string]bool{
		{"xTIMEOUTs", "timeout"}: true, {"xtİmeouts", "timeout"}: true, {"\u212aill", "KILL"}: true,
		{"tim eout", "timeout"}: false, {"a long message of more than sixteen bytes, timeOUT", "timeout"}: true,
	}
	for c, want := range contains {
		if got := newFoldTerm(c[1], termAny).Match(c[0]); got != want {
			t.Errorf("%q contains %q = %v, want %v", c[0], c[1], got, want)
		}
	}
	for _, c := range cases {
		for mode, want := range map[int]bool{termWhole: c.has, termPrefix: c.pre, termSuffix: c.suffix} {
			if got := newFoldTerm(c.needle, mode).Match(c.text); got != want {
				t.Errorf("%q %s %q = %v, want %v", c.text, termModes[mode], c.needle, got, want)
			}
			if ref := hasTerm(c.text, c.needle, false, mode); ref != want {
				t.Errorf("case %q %s %q: hasTerm says %v", c.text, termModes[mode], c.needle, ref)
			}
		}
	}
}

// alphabet draws texts that reach every branch of the matcher: letters in
// both cases, digits, boundaries, multi-byte letters and non-letters,
// the runes that lower to ASCII, and invalid UTF-8.
var alphabet = []string{"a", "B", "c", "-", "_", " ", "1", "é", "K", ".", "ab", "AB", "\r", "M",
	"İ", "\u212a", "ß", "→", "\xff", "\xc3", "i", "k", "\u00a0", "aB", "0"}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// The fast matcher agrees with hasTerm on random texts long enough for
// several words of the scan, with random ASCII needles, in every mode;
// for needles that are one term it also agrees with the definition:
// lower-case, cut into terms, compare.
func TestFoldTermAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300000 {
		text, needle := randomText(r, r.IntN(30)), randomText(r, 1+r.IntN(3))
		if !isASCII(needle) {
			continue
		}
		for mode := range termModes {
			checkFoldTerm(t, text, needle, mode)
		}
	}
}

// checkFoldTerm fails t when the matcher disagrees with the references.
func checkFoldTerm(t *testing.T, text, needle string, mode int) {
	got := newFoldTerm(needle, mode).Match(text)
	if mode == termAny {
		want := strings.Contains(strings.ToLower(text), strings.ToLower(needle))
		if got != want || containsFold(text, needle) != want {
			t.Fatalf("%q contains %q = %v, containsFold %v, lowered %v", text, needle, got, containsFold(text, needle), want)
		}
		return
	}
	if want := hasTerm(text, needle, false, mode); got != want {
		t.Fatalf("%q %s %q = %v, hasTerm %v", text, termModes[mode], needle, got, want)
	}
	if want, ok := tokenHas(text, needle, mode); ok && got != want {
		t.Fatalf("%q %s %q = %v, by terms %v", text, termModes[mode], needle, got, want)
	}
}

// tokenHas is the definition for a needle that is one term: ok is false
// for a needle holding a boundary.
func tokenHas(text, needle string, mode int) (has, ok bool) {
	needle = strings.ToLower(needle)
	if strings.IndexFunc(needle, func(r rune) bool { return !isTermRune(r) }) >= 0 {
		return false, false
	}
	for _, term := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTermRune(r) }) {
		switch {
		case mode == termWhole && term == needle,
			mode == termPrefix && strings.HasPrefix(term, needle),
			mode == termSuffix && strings.HasSuffix(term, needle):
			return true, true
		}
	}
	return false, true
}

// The case-sensitive matcher (has_cs and its prefix and suffix forms)
// agrees with hasTerm's case-sensitive answer, which the operators gave
// before it, on the same random texts and needles and on the cases where
// case decides.
func TestExactTermAgrees(t *testing.T) {
	for _, c := range [][2]string{{"a TimeOut b", "TimeOut"}, {"a TimeOut b", "timeout"}, {"TIMEOUT", "timeout"},
		{"\u212aill", "kill"}, {"tİmeout", "timeout"}, {"x deadlock y", "deadlock"}, {"deadlocks", "deadlock"}} {
		for mode := range termModes {
			if mode != termAny {
				checkExactTerm(t, c[0], c[1], mode)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 300000 {
		text, needle := randomText(r, r.IntN(30)), randomText(r, 1+r.IntN(3))
		if !isASCII(needle) {
			continue
		}
		for mode := range termModes {
			if mode != termAny {
				checkExactTerm(t, text, needle, mode)
			}
		}
	}
}

// checkExactTerm fails t when the case-sensitive matcher disagrees with
// hasTerm.
func checkExactTerm(t *testing.T, text, needle string, mode int) {
	if got, want := newExactTerm(needle, mode).Match(text), hasTerm(text, needle, true, mode); got != want {
		t.Fatalf("%q %s_cs %q = %v, hasTerm %v", text, termModes[mode], needle, got, want)
	}
}

func FuzzFoldTerm(f *testing.F) {
	f.Add("a TimeOut b", "timeout", uint8(0))
	f.Add("xtİmeout", "timeout", uint8(2))
	f.Add("\u212aill", "kill", uint8(1))
	f.Add("\xc3timeoutß", "timeout", uint8(0))
	f.Fuzz(func(t *testing.T, text, needle string, mode uint8) {
		if needle == "" || !isASCII(needle) {
			return
		}
		checkFoldTerm(t, text, needle, int(mode%4)-1)
		if mode%4 != 0 {
			checkExactTerm(t, text, needle, int(mode%4)-1)
		}
	})
}

// fill answers only the live rows and inverts for the negated operator.
func TestFoldTermFillSel(t *testing.T) {
	strs := []string{"a timeout", "TIMEOUT", "none", "timeouts", "x timeout"}
	out := make([]bool, len(strs))
	newFoldTerm("timeout", termWhole).fill(strs, []int32{1, 2, 3}, true, out)
	want := []bool{false, false, true, true, false}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("fill = %v, want %v", out, want)
		}
	}
}

// genMessages returns n messages of the benchmarks' generator.
func genMessages(n int) []string {
	g := gen.NewWith(7, gen.Options{Shape: gen.Real, EventsPerDay: n})
	out := make([]string, n)
	for i := range out {
		out[i], _ = g.Event()["message"].(string)
	}
	return out
}

// BenchmarkHasTermColumn is `has` over a batch of realistic messages: the
// common word (in about 2% of them) and the rare one, through the batch
// kernel, and the generic hasTerm for scale.
func BenchmarkHasTermColumn(b *testing.B) {
	msgs := genMessages(8192)
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	out := make([]bool, len(msgs))
	for _, needle := range []string{gen.CommonWord, gen.RareWord} {
		b.Run(needle+"/fold", func(b *testing.B) {
			f := newFoldTerm(needle, termWhole)
			benchColumn(b, size, len(msgs), func() { f.fill(msgs, nil, false, out) })
		})
		b.Run(needle+"/contains", func(b *testing.B) {
			f := newFoldTerm(needle, termAny)
			benchColumn(b, size, len(msgs), func() { f.fill(msgs, nil, false, out) })
		})
		b.Run(needle+"/exact", func(b *testing.B) {
			f := newExactTerm(needle, termWhole)
			benchColumn(b, size, len(msgs), func() { f.fill(msgs, nil, false, out) })
		})
		// The word-at-a-time scan alone, for the rare byte's gain.
		b.Run(needle+"/exact-words", func(b *testing.B) {
			f := newExactTerm(needle, termWhole)
			f.useRare = false
			benchColumn(b, size, len(msgs), func() { f.fill(msgs, nil, false, out) })
		})
		b.Run(needle+"/fold-words", func(b *testing.B) {
			f := newFoldTerm(needle, termWhole)
			f.useRare = false
			benchColumn(b, size, len(msgs), func() { f.fill(msgs, nil, false, out) })
		})
		b.Run(needle+"/generic-cs", func(b *testing.B) {
			benchColumn(b, size, len(msgs), func() {
				for i, m := range msgs {
					out[i] = hasTerm(m, needle, true, termWhole)
				}
			})
		})
		b.Run(needle+"/generic", func(b *testing.B) {
			benchColumn(b, size, len(msgs), func() {
				for i, m := range msgs {
					out[i] = hasTerm(m, needle, false, termWhole)
				}
			})
		})
	}
}

func benchColumn(b *testing.B, size, rows int, run func()) {
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
