package agg

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/aplite/aplite/vector"
)

// phrases(text [, max]) finds the most common phrases in each group's
// text values and returns up to max (default 10) of them as a dynamic
// array of {"phrase": p, "count": n} in descending count order.
//
// Axiom documents the output ("the most common phrases ... ordered by
// frequency") but not how phrases are found, so this is our definition:
// text is cut into segments at punctuation and line breaks, each segment
// into lower-cased words (runs of letters and digits); a phrase is a run
// of 2 to 4 consecutive words within a segment, or the lone word of a
// one-word segment. Occurrences are counted with a space-saving summary
// (exact below max(32·max, 512) distinct phrases per group).

func init() { Register(phrasesSpec) }

const (
	defaultPhrases = 10
	maxPhraseWords = 4
)

var phrasesSpec = &Spec{
	Name:      "phrases",
	APIName:   "computed",
	MinArgs:   1,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result: func(args []vector.Type) ([]vector.Type, error) {
		return one(vector.Dynamic), phrasesType(args[0])
	},
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		if err := phrasesType(args[0]); err != nil {
			return nil, err
		}
		k := int64(defaultPhrases)
		if len(args) > 1 {
			var err error
			if k, err = constInt(1, consts[1]); err != nil {
				return nil, err
			}
			if k < 1 || k > 10000 {
				return nil, fmt.Errorf("max_phrases must be 1 to 10000, got %d", k)
			}
		}
		return &phrasesState{k: int(k)}, nil
	},
	Doc: "Returns the most common phrases of the group's text with their counts.",
}

func phrasesType(t vector.Type) error {
	if t != vector.String && t != vector.Null {
		return fmt.Errorf("argument 1 must be a string, got %s", t)
	}
	return nil
}

type phrasesState struct {
	k      int
	groups []*spaceSaving[string]
	words  []string
}

func (s *phrasesState) Grow(n int) { s.groups = growSlice(s.groups, n) }

func (s *phrasesState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) || v.Type != vector.String {
		return
	}
	for k, g := range groups {
		r, ok := liveRow(v, sel, k)
		if !ok {
			continue
		}
		ss := s.groups[g]
		if ss == nil {
			ss = newSpaceSaving[string](topkCapacity(s.k))
			s.groups[g] = ss
		}
		s.addText(ss, v.Str(r))
	}
}

// addText counts the phrases of one text value.
func (s *phrasesState) addText(ss *spaceSaving[string], text string) {
	for _, seg := range strings.FieldsFunc(text, isSegmentBreak) {
		s.words = s.words[:0]
		for _, w := range strings.FieldsFunc(seg, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			s.words = append(s.words, strings.ToLower(w))
		}
		if len(s.words) == 1 {
			ss.add(s.words[0], 1, 0)
			continue
		}
		for i := range s.words {
			for n := 2; n <= maxPhraseWords && i+n <= len(s.words); n++ {
				ss.add(strings.Join(s.words[i:i+n], " "), 1, 0)
			}
		}
	}
}

func isSegmentBreak(r rune) bool {
	switch r {
	case '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{', '}', '<', '>', '"', '|', '/', '\\', '=', '&', '\n', '\r', '\t':
		return true
	}
	return false
}

func (s *phrasesState) Merge(other State, into []uint32) {
	o := other.(*phrasesState)
	for g, dst := range into {
		if o.groups[g] == nil {
			continue
		}
		if s.groups[dst] == nil {
			s.groups[dst] = newSpaceSaving[string](topkCapacity(s.k))
		}
		s.groups[dst].merge(o.groups[g])
	}
}

func (s *phrasesState) Result(n int) []*vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		arr := []any{}
		if ss := s.groups[g]; ss != nil {
			for _, i := range ss.top(s.k) {
				arr = append(arr, map[string]any{"phrase": ss.keys[i], "count": ss.counts[i]})
			}
		}
		out[g] = arr
	}
	return []*vector.Vector{dynResult(out, n)}
}
