package core

import "strings"

// hasTermFold is has/hasprefix/hassuffix (case-insensitive) for an ASCII
// needle given in lower case: the same answers as hasTerm, without
// lower-casing every text (which allocated a copy of each message and
// made `where message has "x"` cost ~300 ns a row). Candidates are found
// with IndexByte on the needle's first byte in either case, checked with
// an ASCII fold, then at term boundaries. Texts that are not ASCII fall
// back to hasTerm, whose Unicode folding can change byte lengths.
func hasTermFold(text, lowNeedle string, mode int) bool {
	n := len(lowNeedle)
	if n == 0 || !isASCII(text) {
		return hasTerm(text, lowNeedle, false, mode)
	}
	lo := lowNeedle[0]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for off := 0; off+n <= len(text); {
		i := indexEither(text[off:len(text)-n+1], lo, up)
		if i < 0 {
			return false
		}
		start := off + i
		end := start + n
		if equalFoldASCII(text[start:end], lowNeedle) {
			startOK := start == 0 || !isTermByte(text[start-1])
			endOK := end == len(text) || !isTermByte(text[end])
			switch mode {
			case termWhole:
				if startOK && endOK {
					return true
				}
			case termPrefix:
				if startOK {
					return true
				}
			case termSuffix:
				if endOK {
					return true
				}
			}
		}
		off = start + 1
	}
	return false
}

// indexEither is the first index of a or b in s, or -1.
func indexEither(s string, a, b byte) int {
	i := strings.IndexByte(s, a)
	if a == b {
		return i
	}
	j := strings.IndexByte(s, b)
	switch {
	case i < 0:
		return j
	case j < 0 || i < j:
		return i
	}
	return j
}

// isTermByte is isTermRune for ASCII.
func isTermByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// foldTermPred returns the fast predicate for a case-insensitive term
// operator over a constant ASCII needle, or nil.
func foldTermPred(op, needle string) strPred {
	if !isASCII(needle) || needle == "" {
		return nil
	}
	mode := -1
	switch strings.TrimPrefix(op, "!") {
	case "has":
		mode = termWhole
	case "hasprefix":
		mode = termPrefix
	case "hassuffix":
		mode = termSuffix
	}
	if mode < 0 {
		return nil
	}
	low := strings.ToLower(needle)
	return func(t, _ string) bool { return hasTermFold(t, low, mode) }
}
