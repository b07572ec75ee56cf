package fn

// Property bags: bag_pack (pack), pack_dictionary, bag_zip, bag_merge,
// bag_keys, bag_has_key and array_select_dict. Bags are map[string]any,
// which has no order, so bag_keys returns keys sorted.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "bag_pack", Aliases: []string{"pack"}, Family: "array", MinArgs: 0, MaxArgs: -1,
		Result: bagPackResult("bag_pack"), Eval: evalBagPack,
		Doc: "Builds a property bag from alternating keys and values."})
	Register(&Func{Name: "pack_dictionary", Family: "array", MinArgs: 0, MaxArgs: -1,
		Result: bagPackResult("pack_dictionary"), Eval: evalBagPack,
		Doc: "Builds a property bag from alternating keys and values (same as bag_pack)."})
	Register(&Func{Name: "bag_zip", Family: "array", MinArgs: 2, MaxArgs: 2,
		Result: Sig("bag_zip", vector.Dynamic, KDyn, KDyn), Eval: evalBagZip,
		Doc: "Builds a property bag from an array of keys and an array of values, up to the shorter array (Axiom's page); a key that is not a string is skipped with its value, as Kusto's page says (Axiom's asks for strings); null when either argument is not an array."})
	Register(&Func{Name: "bag_merge", Family: "array", MinArgs: 1, MaxArgs: -1,
		Result: Sig("bag_merge", vector.Dynamic, KDyn), Eval: evalBagMerge,
		Doc: "Merges property bags; a key in a later bag replaces the same key in an earlier one."})
	Register(&Func{Name: "bag_keys", Family: "array", MinArgs: 1, MaxArgs: 1,
		Result: Sig("bag_keys", vector.Dynamic, KDyn), Eval: evalBagKeys,
		Doc: "The keys of a property bag, sorted, as an array."})
	Register(&Func{Name: "bag_has_key", Family: "array", MinArgs: 2, MaxArgs: 2,
		Result: Sig("bag_has_key", vector.Bool, KDyn, KString), Eval: evalBagHasKey,
		Doc: "True when the bag has the key; a key starting with $ is a JSONPath to a nested key."})
	Register(&Func{Name: "array_select_dict", Family: "array", MinArgs: 2, MaxArgs: 3,
		Result: Sig("array_select_dict", vector.Dynamic, KDyn, KAny, KAny), Eval: evalArraySelectDict,
		Doc: "For each bag in an array, a bag with only the listed keys; with (array, key, value), the first bag whose key holds value."})
}

// bagPackResult checks that keys and values come in pairs.
func bagPackResult(name string) func([]vector.Type) (vector.Type, error) {
	return func(args []vector.Type) (vector.Type, error) {
		if len(args)%2 != 0 {
			return vector.Null, fmt.Errorf("%s takes keys and values in pairs, got %d arguments", name, len(args))
		}
		return vector.Dynamic, nil
	}
}

// evalBagPack builds one bag per row. A null key drops its pair, since a
// bag cannot have a null key; a null value is kept as a JSON null.
func evalBagPack(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		m := make(map[string]any, len(args)/2)
		for j := 0; j+1 < len(args); j += 2 {
			k, ok := ToString(args[j], i)
			if !ok {
				continue
			}
			m[k] = args[j+1].Value(i)
		}
		return m, true
	}), nil
}

// evalBagZip pairs keys with values up to the shorter array, as Axiom's
// page says; keys that are not strings are skipped.
func evalBagZip(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		keys, ok1 := arrAt(args[0], i)
		vals, ok2 := arrAt(args[1], i)
		if !ok1 || !ok2 {
			return nil, false
		}
		m := make(map[string]any, len(keys))
		for j := 0; j < len(keys) && j < len(vals); j++ {
			// Kusto's page: "keys that aren't strings are ignored"; the
			// pair is skipped, so later keys keep their own values.
			if k, ok := keys[j].(string); ok {
				m[k] = vals[j]
			}
		}
		return m, true
	}), nil
}

// evalBagMerge merges shallowly, later bags winning (Axiom's rule; KQL's
// first-wins is the opposite). Arguments that are not bags are skipped;
// the result is null only when none is a bag.
func evalBagMerge(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		var out map[string]any
		for _, a := range args {
			m, ok := bagAt(a, i)
			if !ok {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(m))
			}
			for k, v := range m {
				out[k] = v
			}
		}
		return out, out != nil
	}), nil
}

func evalBagKeys(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		m, ok := bagAt(args[0], i)
		if !ok {
			return nil, false
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for j, k := range keys {
			out[j] = k
		}
		return out, true
	}), nil
}

// evalBagHasKey is false for a value that is not a bag and null for a
// null value.
func evalBagHasKey(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Bool, args, n, func(i int) (bool, bool) {
		if args[0].IsNull(i) {
			return false, false
		}
		key, ok := ToString(args[1], i)
		if !ok {
			return false, false
		}
		m, isBag := bagAt(args[0], i)
		if !isBag {
			return false, true
		}
		if strings.HasPrefix(key, "$") {
			steps, valid := arrParsePath(key)
			return valid && len(arrPathEval(m, steps)) > 0, true
		}
		_, has := m[key]
		return has, true
	}), nil
}

// evalArraySelectDict keeps, from each bag element, only the listed keys
// (a single string key is accepted too). Elements that are not bags are
// left out, so the result is an array of bags as the page describes.
// evalArraySelectDict has Axiom's two forms: (array, keys) keeps those
// keys of every dictionary; (array, key, value) returns the first
// dictionary whose key holds value (numbers by value, 1 == 1.0), or null.
func evalArraySelectDict(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	if len(args) == 3 {
		return evalSelectDictByValue(args, n), nil
	}
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		keys, ok := arrKeyList(args[1], i)
		if !ok {
			return nil, false
		}
		out := make([]any, 0, len(arr))
		for _, x := range arr {
			m, isBag := x.(map[string]any)
			if !isBag {
				continue
			}
			sel := make(map[string]any, len(keys))
			for _, k := range keys {
				if v, has := m[k]; has {
					sel[k] = v
				}
			}
			out = append(out, sel)
		}
		return out, true
	}), nil
}

// arrKeyList reads a list of keys given as an array of strings or as one
// string.
func arrKeyList(v *vector.Vector, i int) ([]string, bool) {
	if arr, ok := arrAt(v, i); ok {
		keys := make([]string, 0, len(arr))
		for _, x := range arr {
			if s, ok := x.(string); ok {
				keys = append(keys, s)
			}
		}
		return keys, true
	}
	s, ok := ToString(v, i)
	if !ok {
		return nil, false
	}
	return []string{s}, true
}

func evalSelectDictByValue(args []*vector.Vector, n Rows) *vector.Vector {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		key, ok := ToString(args[1], i)
		if !ok {
			return nil, false
		}
		want := args[2].Value(i)
		for _, x := range arr {
			if m, isBag := x.(map[string]any); isBag {
				if v, has := m[key]; has && arrEqual(v, want) {
					return m, true
				}
			}
		}
		return nil, false
	})
}
