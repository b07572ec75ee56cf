package fn

// Key-value pair strings ("host:server1"): pair builds one, parse_pair
// splits one into a bag, find_pair searches an array of them with
// wildcard patterns. The separator defaults to ":" and splits at its
// first occurrence, so values may contain it ("url:http://x").

import (
	"strings"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "pair", Family: "pair", MinArgs: 2, MaxArgs: 3,
		Result: Sig("pair", vector.String, KString, KString, KString), Eval: evalPair,
		Doc: "The string key<separator>value, with \":\" as the default separator."})
	Register(&Func{Name: "parse_pair", Family: "pair", MinArgs: 1, MaxArgs: 2,
		Result: Sig("parse_pair", vector.Dynamic, KString, KString), Eval: evalParsePair,
		Doc: "Splits a pair string into a bag {key, value, separator}; without the separator the key is \"\"."})
	Register(&Func{Name: "find_pair", Family: "pair", MinArgs: 3, MaxArgs: 4,
		Result: Sig("find_pair", vector.Dynamic, KDyn, KString, KString, KString), Eval: evalFindPair,
		Doc: "The first pair in an array whose key and value match wildcard patterns, as {key, value}; null if none."})
}

const pairDefaultSep = ":"

// pairSepAt reads the optional separator argument at position pos.
func pairSepAt(args []*vector.Vector, pos, i int) (string, bool) {
	if len(args) <= pos {
		return pairDefaultSep, true
	}
	return ToString(args[pos], i)
}

func evalPair(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		k, ok1 := ToString(args[0], i)
		v, ok2 := ToString(args[1], i)
		sep, ok3 := pairSepAt(args, 2, i)
		if !ok1 || !ok2 || !ok3 {
			return "", false
		}
		return k + sep + v, true
	}), nil
}

// pairSplit splits s at the first sep; without it the whole string is the
// value, as Axiom's page says.
func pairSplit(s, sep string) (key, value string) {
	if sep != "" {
		if k, v, found := strings.Cut(s, sep); found {
			return k, v
		}
	}
	return "", s
}

func evalParsePair(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		s, ok1 := ToString(args[0], i)
		sep, ok2 := pairSepAt(args, 1, i)
		if !ok1 || !ok2 {
			return nil, false
		}
		k, v := pairSplit(s, sep)
		return map[string]any{"key": k, "value": v, "separator": sep}, true
	}), nil
}

// evalFindPair matches the patterns against each string element split
// at the separator; elements without the separator or that are not
// strings are skipped.
func evalFindPair(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		kp, ok1 := ToString(args[1], i)
		vp, ok2 := ToString(args[2], i)
		sep, ok3 := pairSepAt(args, 3, i)
		if !ok1 || !ok2 || !ok3 || sep == "" {
			return nil, false
		}
		for _, x := range arr {
			s, isStr := x.(string)
			if !isStr {
				continue
			}
			k, v, found := strings.Cut(s, sep)
			if found && pairGlob(kp, k) && pairGlob(vp, v) {
				return map[string]any{"key": k, "value": v}, true
			}
		}
		return nil, false
	}), nil
}

// pairGlob matches s against a pattern where * stands for any run of
// characters (possibly empty); everything else matches itself.
func pairGlob(pattern, s string) bool {
	star, mark := -1, 0
	p, j := 0, 0
	for j < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, j
			p++
		case p < len(pattern) && pattern[p] == s[j]:
			p++
			j++
		case star >= 0:
			p = star + 1
			mark++
			j = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
