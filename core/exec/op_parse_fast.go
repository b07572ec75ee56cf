package exec

import (
	"strings"

	"github.com/aplite/aplite/vector"
)

// FastItem is one element of a simple-mode pattern for fastMatch.
type FastItem struct {
	Konst string // the constant, when cap < 0 and !star
	Star  bool
	Cap   int // capture number, or -1
	Typ   vector.Type
}

// FastMatch scans s the way the pattern's regular expression would: a
// constant must follow at once, a `*` or string capture stops at the
// first occurrence of the next constant (or, before the last constant, at
// the end), a typed capture takes the longest run of its shape. It gives
// the regular expression's own first match whenever it finds one, since
// it follows the same order of preference. definite is false when the
// scan failed after a choice the regular expression could revisit; the
// caller then asks the regular expression.
func FastMatch(items []FastItem, s string, out []string) (ok, definite bool) {
	pos := 0
	choice := false // a `*` or capture chose an end the regexp could move
	greedy := false // a typed capture chose a length the regexp could shorten
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.Cap < 0 && !it.Star {
			if !strings.HasPrefix(s[pos:], it.Konst) {
				return false, !choice
			}
			pos += len(it.Konst)
			continue
		}
		if i == len(items)-1 {
			rest := s[pos:]
			if it.Cap >= 0 {
				if shapeLen(it.Typ, rest) != len(rest) || (rest == "" && hasShape(it.Typ)) {
					return false, !choice
				}
				out[it.Cap] = rest
			}
			return true, true
		}
		next := items[i+1].Konst
		var end int
		switch {
		case it.Cap >= 0 && hasShape(it.Typ):
			end = pos + shapeLen(it.Typ, s[pos:])
			if end == pos || !strings.HasPrefix(s[end:], next) {
				return false, !choice && end == pos
			}
			greedy = true
		case i+1 == len(items)-1:
			// The last constant must end the text.
			if !strings.HasSuffix(s, next) {
				return false, true
			}
			if end = len(s) - len(next); end < pos {
				return false, !greedy
			}
		default:
			j := strings.Index(s[pos:], next)
			if j < 0 {
				return false, !greedy
			}
			end = pos + j
		}
		choice = true
		if it.Cap >= 0 {
			out[it.Cap] = s[pos:end]
		}
		pos = end
	}
	return pos == len(s), !choice || pos == len(s)
}

// hasShape reports whether a capture of type t is limited to a shape
// (see captureRegex) rather than any text.
func hasShape(t vector.Type) bool {
	return t == vector.Int || t == vector.Float || t == vector.Bool
}

// shapeLen is the length of the longest prefix of s that has the shape of
// type t (any text for types without a shape); 0 when none.
func shapeLen(t vector.Type, s string) int {
	switch t {
	case vector.Int:
		i := 0
		if i < len(s) && s[i] == '-' {
			i++
		}
		d := digits(s[i:])
		if d == 0 {
			return 0
		}
		return i + d
	case vector.Float:
		return floatShapeLen(s)
	case vector.Bool:
		for _, w := range []string{"true", "false"} {
			if len(s) >= len(w) && strings.EqualFold(s[:len(w)], w) {
				return len(w)
			}
		}
		return 0
	}
	return len(s)
}

// floatShapeLen matches -?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)? greedily.
func floatShapeLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	intDigits := digits(s[i:])
	i += intDigits
	if i < len(s) && s[i] == '.' {
		frac := digits(s[i+1:])
		if intDigits == 0 && frac == 0 {
			return 0
		}
		i += 1 + frac
	} else if intDigits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		if d := digits(s[j:]); d > 0 {
			i = j + d
		}
	}
	return i
}

// digits counts the leading ASCII digits of s.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
