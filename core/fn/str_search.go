package fn

import (
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// Searching and counting: countof, countof_regex, indexof, indexof_regex.
// Argument order follows Axiom's pages: the text comes first for all four.

func init() {
	Register(&Func{Name: "countof", Family: famString, MinArgs: 2, MaxArgs: 2,
		Result: Sig("countof", vector.Int, KString, KString),
		Eval:   evalCountof,
		Doc:    "countof(search, text): number of (possibly overlapping) occurrences of search in text (Axiom's order; KQL puts text first)."})
	Register(&Func{Name: "countof_regex", Family: famString, MinArgs: 2, MaxArgs: 2,
		Result: Sig("countof_regex", vector.Int, KString, KString),
		Eval:   evalCountofRegex,
		Doc:    "countof_regex(regex, text): number of non-overlapping regex matches in text (Axiom's order)."})
	Register(&Func{Name: "indexof", Family: famString, MinArgs: 2, MaxArgs: 5,
		Result: Sig("indexof", vector.Int, KString, KString, KInt, KInt, KInt),
		Eval:   evalIndexof,
		Doc:    "indexof(source, lookup[, start[, length[, occurrence]]]): zero-based character index of the occurrence-th lookup, or -1; start < 0 counts from the end, length -1 is to the end (Kusto's semantics; Axiom's page lists the arguments only)."})
	Register(&Func{Name: "indexof_regex", Family: famString, MinArgs: 2, MaxArgs: 5,
		Result: Sig("indexof_regex", vector.Int, KString, KString, KInt, KInt, KInt),
		Eval:   evalIndexofRegex,
		Doc:    "indexof_regex(source, regex[, start[, occurrence[, length]]]): zero-based character index of a regex match, or -1."})
}

// countof and countof_regex take the text last, as Axiom's pages do
// (apl.md §1.9, #16): countof('/', uri).
func evalCountof(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.Int, args, 1, n, func(s string, i int) (int64, bool) {
		sub, ok := ToString(args[0], i)
		if !ok {
			return 0, false
		}
		return countOverlapping(s, sub), true
	}), nil
}

// countOverlapping counts occurrences of sub in s, stepping one character
// past each match start so "aa" occurs twice in "aaa".
func countOverlapping(s, sub string) int64 {
	if sub == "" {
		return 0
	}
	var c int64
	for {
		k := strings.Index(s, sub)
		if k < 0 {
			return c
		}
		c++
		_, w := utf8.DecodeRuneInString(s[k:])
		s = s[k+w:]
	}
}

func evalCountofRegex(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkRegexArg("countof_regex", args, 0, n); err != nil {
		return nil, err
	}
	re := regexReader(args, 0)
	return strRows(vector.Int, args, 1, n, func(s string, i int) (int64, bool) {
		r, ok := re(i)
		if !ok {
			return 0, false
		}
		return int64(len(r.FindAllStringIndex(s, -1))), true
	}), nil
}

// searchWindow validates indexof's start/length/occurrence and returns
// the byte range of s to search and the byte offset of start. ok is false
// when APL answers null: a negative start, occurrence < 1 or length < -1.
func searchWindow(s string, start, length, occurrence int64) (lo, hi int, ok bool) {
	if start < 0 || occurrence < 1 || length < -1 {
		return 0, 0, false
	}
	lo = byteOffset(s, 0, start)
	hi = len(s)
	if length >= 0 {
		hi = byteOffset(s, lo, length)
	}
	return lo, hi, true
}

// byteOffset advances n characters from byte offset from, stopping at the
// end of s.
func byteOffset(s string, from int, n int64) int {
	b := from
	for c := int64(0); c < n && b < len(s); c++ {
		_, w := utf8.DecodeRuneInString(s[b:])
		b += w
	}
	return b
}

// evalIndexof follows Kusto's indexof: a negative start counts from the
// end of the text, length -1 searches to the end, and occurrence picks the
// n-th match. Each occurrence's search examines length characters from
// where it starts (start, then one past the previous match), which is how
// Kusto's example indexof("abcdefgabcdefg", "cde", 1, 10, 2) finds 9: the
// second match ends past start+length. A fixed window [start,
// start+length) gave -1 there.
func evalIndexof(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.Int, args, 0, n, func(s string, i int) (int64, bool) {
		sub, ok1 := ToString(args[1], i)
		start, ok2 := optInt(args, 2, i, 0)
		length, ok3 := optInt(args, 3, i, -1)
		occ, ok4 := optInt(args, 4, i, 1)
		if !ok1 || !ok2 || !ok3 || !ok4 || occ < 1 || length < -1 {
			return 0, false
		}
		chars := int64(utf8.RuneCountInString(s))
		if start < 0 {
			start = max(start+chars, 0)
		}
		if start > chars {
			return -1, true
		}
		lo := byteOffset(s, 0, start)
		for {
			hi := len(s)
			if length >= 0 {
				hi = byteOffset(s, lo, length)
			}
			k := strings.Index(s[lo:hi], sub)
			if k < 0 {
				return -1, true
			}
			if occ--; occ == 0 {
				return int64(utf8.RuneCountInString(s[:lo+k])), true
			}
			_, step := utf8.DecodeRuneInString(s[lo+k:])
			lo += k + max(step, 1)
			if lo > len(s) {
				return -1, true
			}
		}
	}), nil
}

func evalIndexofRegex(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkRegexArg("indexof_regex", args, 1, n); err != nil {
		return nil, err
	}
	re := regexReader(args, 1)
	return strRows(vector.Int, args, 0, n, func(s string, i int) (int64, bool) {
		r, ok1 := re(i)
		start, ok2 := optInt(args, 2, i, 0)
		occ, ok3 := optInt(args, 3, i, 1)
		length, ok4 := optInt(args, 4, i, -1)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return 0, false
		}
		if start < 0 {
			// A negative start counts from the end of the text (KQL).
			start = max(start+int64(utf8.RuneCountInString(s)), 0)
		}
		lo, hi, ok := searchWindow(s, start, length, occ)
		if !ok {
			return 0, false
		}
		ms := r.FindAllStringIndex(s[lo:hi], int(occ))
		if int64(len(ms)) < occ {
			return -1, true
		}
		return int64(utf8.RuneCountInString(s[:lo+ms[occ-1][0]])), true
	}), nil
}
