package fn

import (
	"regexp"
	"strings"

	"github.com/aplite/aplite/vector"
)

// Trimming. In Axiom trim, trim_start and trim_end take a set of
// characters (a cutset, as Go's strings.Trim) where KQL takes a regex;
// the regex forms are the separate trim_*regex functions. The cutset or
// pattern comes first, the text last.

func init() {
	cut := []struct {
		name string
		f    func(s, cutset string) string
		doc  string
	}{
		{"trim", strings.Trim, "trim(cutset, text): removes leading and trailing characters that are in cutset."},
		{"trim_start", strings.TrimLeft, "trim_start(cutset, text): removes leading characters that are in cutset."},
		{"trim_end", strings.TrimRight, "trim_end(cutset, text): removes trailing characters that are in cutset."},
	}
	for _, c := range cut {
		Register(&Func{Name: c.name, Family: famString, MinArgs: 2, MaxArgs: 2,
			Result: Sig(c.name, vector.String, KString, KString),
			Eval:   evalTrimCutset(c.f),
			Doc:    c.doc})
	}
	re := []struct {
		name       string
		start, end bool
		doc        string
	}{
		{"trim_regex", true, true, "trim_regex(regex, text): removes leading and trailing regex matches."},
		{"trim_start_regex", true, false, "trim_start_regex(regex, text): removes leading regex matches."},
		{"trim_end_regex", false, true, "trim_end_regex(regex, text): removes trailing regex matches."},
	}
	for _, c := range re {
		Register(&Func{Name: c.name, Family: famString, MinArgs: 2, MaxArgs: 2,
			Result: Sig(c.name, vector.String, KString, KString),
			Eval:   evalTrimRegex(c.name, c.start, c.end),
			Doc:    c.doc})
	}
	Register(&Func{Name: "trim_space", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("trim_space", vector.String, KString),
		Eval:   strFunc(vector.String, func(s string) (string, bool) { return strings.TrimSpace(s), true }),
		Doc:    "Removes leading and trailing white space."})
	Register(&Func{Name: "strip_ansi_escapes", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Sig("strip_ansi_escapes", vector.String, KString),
		Eval: strFunc(vector.String, func(s string) (string, bool) {
			if !strings.ContainsRune(s, 0x1b) && !strings.ContainsRune(s, 0x9b) {
				return s, true
			}
			return ansiEscape.ReplaceAllString(s, ""), true
		}),
		Doc: "Removes ANSI escape sequences (colours, cursor movement) from a string."})
}

// ansiEscape matches CSI sequences (ESC [ or 0x9b ... final byte), OSC
// sequences (ESC ] ... BEL or ESC \) and two-byte ESC sequences.
var ansiEscape = regexp.MustCompile(`(?:\x1b\[|\x{9b})[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)

func evalTrimCutset(f func(s, cutset string) string) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return strRows(vector.String, args, 1, n, func(s string, i int) (string, bool) {
			cutset, ok := ToString(args[0], i)
			if !ok {
				return "", false
			}
			return f(s, cutset), true
		}), nil
	}
}

func evalTrimRegex(name string, start, end bool) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		if err := checkRegexArg(name, args, 0, n); err != nil {
			return nil, err
		}
		return strRows(vector.String, args, 1, n, func(s string, i int) (string, bool) {
			p, ok := ToString(args[0], i)
			if !ok {
				return "", false
			}
			if start {
				re := compileRegex(`^(?:` + p + `)+`)
				if re == nil {
					return "", false
				}
				s = s[len(re.FindString(s)):]
			}
			if end {
				re := compileRegex(`(?:` + p + `)+$`)
				if re == nil {
					return "", false
				}
				if loc := re.FindStringIndex(s); loc != nil {
					s = s[:loc[0]]
				}
			}
			return s, true
		}), nil
	}
}
