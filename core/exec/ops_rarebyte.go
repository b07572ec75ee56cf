package exec

import "strings"

// A needle with a rare byte is found by that byte instead of the
// word-at-a-time scan: strings.IndexByte runs through a text many bytes
// a step (vector instructions where the platform has them) and stops
// only where the rare byte is, so a rare word's search costs a fraction
// of a pass per message. `where message has_cs "deadlock"` looks for 'k'
// and checks each 'k' at its offset in the needle; the word-at-a-time
// scan tested every eight bytes for "de" (issue 29: the case-sensitive
// rare word 10 s after an ingest was 1.3-1.4× chDB's time, and the scan
// was most of its CPU; over realistic messages it took 29-39 ns a
// message, the rare byte 7-10). Folding case, only a byte that has no
// other case is looked for. A needle made only of common bytes keeps the
// word-at-a-time scan, which costs the same whatever it meets.

// rareCutoff is the commonest a byte may be (byteFreq's scale: percent of
// a log text's bytes) and still be looked for alone: above it, stopping at
// each one costs more than the word-at-a-time scan.
const rareCutoff = 2.0

// byteFreq estimates how often c occurs in log text, in percent of its
// bytes: English letter frequencies scaled by how much of a log line is
// words, with digits, spaces and the punctuation of URLs and key=value
// pairs common, capitals a tenth of their lower case and everything else
// rare. It only ranks a needle's bytes against each other and the cutoff.
func byteFreq(c byte) float64 {
	const letters = 0.7 // share of a log line's bytes that are letters
	switch {
	case c >= 'a' && c <= 'z':
		return letters * englishFreq[c-'a']
	case c >= 'A' && c <= 'Z':
		return letters * englishFreq[c-'A'] / 10
	case c >= '0' && c <= '9':
		return 2.5
	case c == ' ':
		return 15
	case strings.IndexByte("/.-_=:,\"", c) >= 0:
		return 2
	}
	return 0.3
}

// englishFreq is the percent of English letters that are a to z.
var englishFreq = [26]float64{8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.77, 4.0, 2.4,
	6.7, 7.5, 1.9, 0.1, 6.0, 6.3, 9.1, 2.8, 1.0, 2.4, 0.15, 2.0, 0.07}

// rareByte picks the needle byte to look for: the rarest by byteFreq. A
// letter is not picked when case is folded (looking for both spellings
// took as long as the word scan over realistic messages). ok is false
// when no byte is rare enough to pay.
func rareByte(low string, fold bool) (at int, rare byte, ok bool) {
	best := rareCutoff
	for i := 0; i < len(low); i++ {
		c := low[i]
		if fold && lowerASCII(c) != upperASCII(c) {
			continue
		}
		if f := byteFreq(c); f <= best {
			at, rare, best, ok = i, c, f, true
		}
	}
	return at, rare, ok
}

// upperASCII upper-cases an ASCII letter and leaves any other byte.
func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// scanRare reports whether text holds the needle where hit accepts it,
// stopping only at the rare byte: a start s has it at s+rareAt, and
// s+len(needle) <= len(text). stops counts the bytes it stopped at.
func (f *foldTerm) scanRare(text string) (found bool, stops int) {
	k, c := f.rareAt, f.rare
	end := len(text) - len(f.low) + k + 1 // the rare byte lies in text[k:end]
	for from := k; from < end; {
		j := strings.IndexByte(text[from:end], c)
		if j < 0 {
			return false, stops
		}
		stops++
		p := from + j
		if f.hit(text, p-k) {
			return true, stops
		}
		from = p + 1
	}
	return false, stops
}

// rareMeter turns the rare byte's scan off for the rest of a batch once
// it stops too often: a byte the table thinks rare may be common in
// these texts (a word of the needle in every message), and then each
// stop, a call and a comparison, costs more than the word scan's bytes.
type rareMeter struct {
	on           bool
	bytes, stops int
}

// rareStopBytes is the fewest bytes a stop must pay for: the word scan
// takes about a quarter of a nanosecond a byte, a stop about five.
const rareStopBytes = 24

// note counts one text's bytes and stops, and decides every 16 KiB.
func (m *rareMeter) note(bytes, stops int) {
	m.bytes += bytes
	m.stops += stops
	if m.bytes < 16<<10 {
		return
	}
	m.on = m.stops*rareStopBytes <= m.bytes
	m.bytes, m.stops = 0, 0
}
