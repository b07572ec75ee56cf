package db

import (
	"slices"
	"strings"

	"github.com/aplite/aplite/vector"
)

// Field is one field of a dataset as GET /v2/datasets/{id}/fields lists
// it: a field stored with several types gets one composite type such as
// "float|integer", and a field holding only nulls is "unknown".
type Field struct {
	Name string
	Type string
}

// Fields merges stored columns (Info.Fields) into one Field per name,
// sorted by name. The server's routes and the console list fields with
// it, so both show a dataset alike.
func Fields(keys []ColKey) []Field {
	types := map[string][]string{}
	for _, k := range keys {
		if _, ok := types[k.Name]; !ok {
			types[k.Name] = nil
		}
		if t := k.Type.APIName(); k.Type != Null && !slices.Contains(types[k.Name], t) {
			types[k.Name] = append(types[k.Name], t)
		}
	}
	out := make([]Field, 0, len(types))
	for name, ts := range types {
		slices.Sort(ts)
		t := strings.Join(ts, "|")
		if t == "" {
			t = "unknown"
		}
		out = append(out, Field{Name: name, Type: t})
	}
	slices.SortFunc(out, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ParseType reads a field type's name as APL and the API spell it
// ("long", "integer", "datetime", ...); false when it names none.
func ParseType(name string) (Type, bool) { return vector.ParseType(name) }
