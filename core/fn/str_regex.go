package fn

import (
	"regexp"
	"strings"

	"github.com/aplite/aplite/vector"
)

// Extraction and replacement. Axiom's pages put the pattern first and the
// text last for all of these: extract(regex, group, text),
// replace_string(lookup, rewrite, text). Patterns are RE2.

func init() {
	Register(&Func{Name: "extract", Family: famString, MinArgs: 3, MaxArgs: 3,
		Result: Sig("extract", vector.String, KString, KInt, KString),
		Eval:   evalExtract,
		Doc:    "extract(regex, group, text): the first match's capture group (0 = whole match), or null."})
	Register(&Func{Name: "extract_all", Family: famString, MinArgs: 2, MaxArgs: 3,
		Result: Sig("extract_all", vector.Dynamic, KString, KAny, KString),
		Eval:   evalExtractAll,
		Doc:    "extract_all(regex, [groups,] text): array of all matches' capture groups (arrays when several groups); groups are numbers or (?P<name>...) names (Axiom's page shows numbers only; follows Kusto)."})
	for _, name := range []string{"replace", "replace_regex"} {
		Register(&Func{Name: name, Family: famString, MinArgs: 3, MaxArgs: 3,
			Result: Sig(name, vector.String, KString, KString, KString),
			Eval:   evalReplaceRegex(name),
			Doc:    name + "(regex, rewrite, text): replaces every regex match; $0, $1... in rewrite refer to groups."})
	}
	Register(&Func{Name: "replace_string", Family: famString, MinArgs: 3, MaxArgs: 3,
		Result: Sig("replace_string", vector.String, KString, KString, KString),
		Eval:   evalReplaceString,
		Doc:    "replace_string(lookup, rewrite, text): replaces every occurrence of lookup."})
	Register(&Func{Name: "split", Family: famString, MinArgs: 2, MaxArgs: 3,
		Result: Sig("split", vector.Dynamic, KString, KString, KInt),
		Eval:   evalSplit,
		Doc:    "split(text, delimiter[, index]): array of the parts between delimiters (or just part index)."})
	Register(&Func{Name: "translate", Family: famString, MinArgs: 3, MaxArgs: 3,
		Result: Sig("translate", vector.String, KString, KString, KString),
		Eval:   evalTranslate,
		Doc:    "translate(text, from, to): maps each character of from to the one at the same place in to; characters beyond to are removed."})
}

func evalExtract(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkRegexArg("extract", args, 0, n); err != nil {
		return nil, err
	}
	re := regexReader(args, 0)
	return strRows(vector.String, args, 2, n, func(s string, i int) (string, bool) {
		r, ok1 := re(i)
		g, ok2 := ToInt(args[1], i)
		if !ok1 || !ok2 || g < 0 || g > int64(r.NumSubexp()) {
			return "", false
		}
		m := r.FindStringSubmatchIndex(s)
		if m == nil || m[2*g] < 0 {
			return "", false
		}
		return s[m[2*g]:m[2*g+1]], true
	}), nil
}

func evalExtractAll(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if err := checkRegexArg("extract_all", args, 0, n); err != nil {
		return nil, err
	}
	re := regexReader(args, 0)
	src := len(args) - 1
	return strRows(vector.Dynamic, args, src, n, func(s string, i int) (any, bool) {
		r, ok := re(i)
		if !ok {
			return nil, false
		}
		groups, ok := extractGroups(args, i, r)
		if !ok {
			return nil, false
		}
		ms := r.FindAllStringSubmatchIndex(s, -1)
		if len(ms) == 0 {
			return nil, false
		}
		out := make([]any, len(ms))
		for k, m := range ms {
			out[k] = pickGroups(s, m, groups)
		}
		return out, true
	}), nil
}

// extractGroups returns the capture groups extract_all reports: the ones
// listed in the optional groups argument, else every group, else (a
// pattern without groups) the whole match. A listed group is a number or,
// as in Kusto's example dynamic(['first', 2, 'last']), the name of a
// (?P<name>...) group; Axiom's page shows numbers only. An unknown group
// makes the row null.
func extractGroups(args []*vector.Vector, i int, r *regexp.Regexp) ([]int, bool) {
	numSub := r.NumSubexp()
	if len(args) == 3 {
		d, _ := ToDynamic(args[1], i)
		if arr, ok := d.([]any); ok && len(arr) > 0 {
			gs := make([]int, len(arr))
			for k, x := range arr {
				if name, isName := x.(string); isName {
					if gs[k] = r.SubexpIndex(name); gs[k] < 0 {
						return nil, false
					}
					continue
				}
				g, ok := DynInt(x)
				if !ok || g < 0 || g > int64(numSub) {
					return nil, false
				}
				gs[k] = int(g)
			}
			return gs, true
		}
	}
	if numSub == 0 {
		return []int{0}, true
	}
	gs := make([]int, numSub)
	for k := range gs {
		gs[k] = k + 1
	}
	return gs, true
}

// pickGroups returns the text of the selected groups of one match: a
// string for one group, an array for several.
func pickGroups(s string, m []int, groups []int) any {
	text := func(g int) any {
		if m[2*g] < 0 {
			return ""
		}
		return s[m[2*g]:m[2*g+1]]
	}
	if len(groups) == 1 {
		return text(groups[0])
	}
	row := make([]any, len(groups))
	for k, g := range groups {
		row[k] = text(g)
	}
	return row
}

func evalReplaceRegex(name string) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		if err := checkRegexArg(name, args, 0, n); err != nil {
			return nil, err
		}
		re := regexReader(args, 0)
		return strRows(vector.String, args, 2, n, func(s string, i int) (string, bool) {
			r, ok1 := re(i)
			rw, ok2 := ToString(args[1], i)
			if !ok1 || !ok2 {
				return "", false
			}
			return r.ReplaceAllString(s, rw), true
		}), nil
	}
}

func evalReplaceString(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.String, args, 2, n, func(s string, i int) (string, bool) {
		lookup, ok1 := ToString(args[0], i)
		rw, ok2 := ToString(args[1], i)
		if !ok1 || !ok2 {
			return "", false
		}
		if lookup == "" {
			return s, true
		}
		return strings.ReplaceAll(s, lookup, rw), true
	}), nil
}

func evalSplit(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.Dynamic, args, 0, n, func(s string, i int) (any, bool) {
		d, ok := ToString(args[1], i)
		if !ok {
			return nil, false
		}
		parts := strings.Split(s, d)
		if len(args) < 3 {
			return strArr(parts), true
		}
		k, ok := ToInt(args[2], i)
		if !ok || k < 0 || k >= int64(len(parts)) {
			return nil, false
		}
		return []any{parts[k]}, true
	}), nil
}

func evalTranslate(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.String, args, 0, n, func(s string, i int) (string, bool) {
		from, ok1 := ToString(args[1], i)
		to, ok2 := ToString(args[2], i)
		if !ok1 || !ok2 {
			return "", false
		}
		return translate(s, from, to), true
	}), nil
}

func translate(s, from, to string) string {
	fr, tr := []rune(from), []rune(to)
	m := make(map[rune]rune, len(fr))
	for k := len(fr) - 1; k >= 0; k-- { // the first occurrence in from wins
		if k < len(tr) {
			m[fr[k]] = tr[k]
		} else {
			m[fr[k]] = -1
		}
	}
	return strings.Map(func(r rune) rune {
		if t, ok := m[r]; ok {
			return t
		}
		return r
	}, s)
}
