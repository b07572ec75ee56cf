package fn

// A small JSONPath subset for array_extract and bag_has_key: $ (the
// root), .name, ['name'] or ["name"], [index] (negative from the end),
// .* and [*]. It covers the paths Axiom's pages use ($[*].value,
// $.a.b); filters and recursive descent are not supported and make the
// path invalid.

import (
	"sort"
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "array_extract", Family: "array", MinArgs: 2, MaxArgs: 2,
		Result: Sig("array_extract", vector.Dynamic, KDyn, KString), Eval: evalArrayExtract,
		Doc: "Values selected from a dynamic value by a JSONPath such as $[*].value, as an array; they keep their JSON types (Axiom's page is inconsistent: [\"true\", \"false\"] in one example, [200] in another; follows Kusto's JSONPath extraction)."})
}

type arrPathKind uint8

const (
	arrPathKey arrPathKind = iota
	arrPathIndex
	arrPathWild
)

type arrPathStep struct {
	kind  arrPathKind
	key   string
	index int64
}

// arrParsePath parses a JSONPath; the leading $ is optional.
func arrParsePath(p string) ([]arrPathStep, bool) {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "$")
	var steps []arrPathStep
	for len(p) > 0 {
		var st arrPathStep
		var ok bool
		switch p[0] {
		case '.':
			st, p, ok = arrPathDot(p[1:])
		case '[':
			st, p, ok = arrPathBracket(p[1:])
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
		steps = append(steps, st)
	}
	return steps, true
}

func arrPathDot(p string) (arrPathStep, string, bool) {
	if strings.HasPrefix(p, "*") {
		return arrPathStep{kind: arrPathWild}, p[1:], true
	}
	end := strings.IndexAny(p, ".[")
	if end < 0 {
		end = len(p)
	}
	if end == 0 {
		return arrPathStep{}, "", false
	}
	return arrPathStep{kind: arrPathKey, key: p[:end]}, p[end:], true
}

func arrPathBracket(p string) (arrPathStep, string, bool) {
	if strings.HasPrefix(p, "*]") {
		return arrPathStep{kind: arrPathWild}, p[2:], true
	}
	if len(p) > 0 && (p[0] == '\'' || p[0] == '"') {
		q := p[0]
		end := strings.IndexByte(p[1:], q)
		if end < 0 || !strings.HasPrefix(p[end+2:], "]") {
			return arrPathStep{}, "", false
		}
		return arrPathStep{kind: arrPathKey, key: p[1 : end+1]}, p[end+3:], true
	}
	end := strings.IndexByte(p, ']')
	if end < 0 {
		return arrPathStep{}, "", false
	}
	idx, err := strconv.ParseInt(strings.TrimSpace(p[:end]), 10, 64)
	if err != nil {
		return arrPathStep{}, "", false
	}
	return arrPathStep{kind: arrPathIndex, index: idx}, p[end+1:], true
}

// arrPathEval returns every value the path selects under root, in
// document order (bag members by key, since bags are unordered). A key
// that exists with a null value is selected as nil.
func arrPathEval(root any, steps []arrPathStep) []any {
	cur := []any{root}
	for _, st := range steps {
		var next []any
		for _, x := range cur {
			next = arrPathApply(next, x, st)
		}
		cur = next
	}
	return cur
}

func arrPathApply(out []any, x any, st arrPathStep) []any {
	switch st.kind {
	case arrPathKey:
		if m, ok := x.(map[string]any); ok {
			if v, has := m[st.key]; has {
				out = append(out, v)
			}
		}
	case arrPathIndex:
		if a, ok := x.([]any); ok {
			if j := arrIndex(st.index, len(a)); j >= 0 && j < int64(len(a)) {
				out = append(out, a[j])
			}
		}
	case arrPathWild:
		switch t := x.(type) {
		case []any:
			out = append(out, t...)
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, t[k])
			}
		}
	}
	return out
}

// evalArrayExtract parses the path once when it is a constant, which is
// how it is written in practice.
func evalArrayExtract(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	var constSteps []arrPathStep
	constOK := false
	if args[1].Const {
		if p, ok := ToString(args[1], 0); ok {
			constSteps, constOK = arrParsePath(p)
		}
	}
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		if args[0].IsNull(i) || args[0].Type != vector.Dynamic {
			return nil, false
		}
		steps, ok := constSteps, constOK
		if !args[1].Const {
			p, has := ToString(args[1], i)
			if !has {
				return nil, false
			}
			steps, ok = arrParsePath(p)
		}
		if !ok {
			return nil, false
		}
		got := arrPathEval(args[0].Dyn(i), steps)
		if got == nil {
			got = []any{}
		}
		return got, true
	}), nil
}
