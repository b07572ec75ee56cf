package ingest

import (
	"testing"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// testNow is the ingest time used by the tests: 2024-05-06T07:08:09Z.
const testNow = int64(1714979289) * 1e9

// event is one decoded row as a test sees it: field name -> value, with
// the column type folded into the value's Go type, plus "_time" (ns).
type event map[string]any

// run decodes body with o (Now defaulting to testNow) and returns the rows.
func run(t testing.TB, body string, o Options) ([]event, Result, *store.Rows, error) {
	t.Helper()
	if o.Now == 0 {
		o.Now = testNow
	}
	b := store.NewRowsBuilder()
	res, err := Decode([]byte(body), o, b)
	rows := b.Finish(o.Now)
	return toEvents(rows), res, rows, err
}

// toEvents turns rows into one map per event; nulls are left out (a null
// cell cannot be told from an absent one in a column).
func toEvents(r *store.Rows) []event {
	out := make([]event, r.N)
	for i := range out {
		e := event{"_time": r.Time[i]}
		for c, k := range r.Keys {
			v := r.Cols[c]
			if v.Len != r.N {
				panic("column " + k.Name + " has the wrong length")
			}
			if v.IsNull(i) {
				if !zeroPayload(v, i) {
					panic("null row " + k.Name + " holds a non-zero payload")
				}
				continue
			}
			if _, dup := e[k.Name]; dup {
				panic("field " + k.Name + " set in two types in one event")
			}
			e[k.Name] = v.Value(i)
		}
		out[i] = e
	}
	return out
}

// columnTypes lists the types each field name has columns for.
func columnTypes(r *store.Rows) map[string][]vector.Type {
	m := map[string][]vector.Type{}
	for _, k := range r.Keys {
		m[k.Name] = append(m[k.Name], k.Type)
	}
	return m
}

// zeroPayload checks the vector contract that a null row's payload slot
// holds the zero value (kernels compute over it and mask after).
func zeroPayload(v *vector.Vector, i int) bool {
	switch v.Type {
	case vector.Bool:
		return !v.Bools[i]
	case vector.Int:
		return v.Ints[i] == 0
	case vector.Float:
		return v.Floats[i] == 0
	case vector.String:
		return v.Strs[i] == ""
	case vector.Dynamic:
		return v.Dyns[i] == nil
	}
	return true
}
