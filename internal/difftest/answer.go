package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aplite/aplite/core/render"
)

// Answer is a query's result as a client decodes it (numbers kept as
// written), or its error.
type Answer struct {
	Err      string
	Tables   []Table
	cacheHit bool // served from the result cache
}

// Table is one table of an answer, row-major.
type Table struct {
	Name   string
	Fields []Field
	Rows   [][]any
}

// Field is a column's name and API type.
type Field struct{ Name, Type string }

// Rows is how many rows the answer's first table has (0 for an error).
func (a *Answer) Rows() int {
	if a.Err != "" || len(a.Tables) == 0 {
		return 0
	}
	return len(a.Tables[0].Rows)
}

func errAnswer(err error) *Answer { return &Answer{Err: err.Error()} }

// fromTabular reads a tabular result back through JSON, as a client
// would.
func fromTabular(t *render.TabularResult) *Answer {
	js, err := json.Marshal(t.Tables)
	if err != nil {
		return &Answer{Err: "encoding the answer: " + err.Error()}
	}
	a, err := decodeTables(js)
	if err != nil {
		return &Answer{Err: err.Error()}
	}
	return a
}

// decodeTables reads the "tables" array of a tabular result.
func decodeTables(js []byte) (*Answer, error) {
	var tables []struct {
		Name    string
		Fields  []Field
		Columns [][]any
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&tables); err != nil {
		return nil, fmt.Errorf("decoding the answer: %w", err)
	}
	a := &Answer{}
	for _, t := range tables {
		tb := Table{Name: t.Name, Fields: t.Fields}
		n := 0
		if len(t.Columns) > 0 {
			n = len(t.Columns[0])
		}
		tb.Rows = make([][]any, n)
		for i := range n {
			row := make([]any, len(t.Columns))
			for j, c := range t.Columns {
				if i < len(c) {
					row[j] = c[i]
				}
			}
			tb.Rows[i] = row
		}
		a.Tables = append(a.Tables, tb)
	}
	return a, nil
}

// Order says how a query's first table is ordered: by its columns Keys
// (none: a bag of rows), and whether a take or top cut it after the
// sort, when the last run of equal keys may hold any of the tied rows.
type Order struct {
	Keys    []string
	Limited bool
	// Opaque: the rows depend on which of tied rows a cut kept, so only
	// the error and the columns can be compared.
	Opaque bool
}

// tolerance is the relative difference allowed between two reals:
// sums and averages add in the order the workers and nodes meet rows.
// Nothing else is approximate here: percentile is exact below 1Mi values
// and dcount's sketch merges to the same registers in any order.
const tolerance = 1e-9

// Diff compares got with want and describes the first difference, or
// returns "" when they agree.
func Diff(want, got *Answer, o Order) string {
	if want.Err != got.Err {
		return fmt.Sprintf("error %q, want %q", clip(got.Err), clip(want.Err))
	}
	if len(want.Tables) != len(got.Tables) {
		return fmt.Sprintf("%d tables, want %d", len(got.Tables), len(want.Tables))
	}
	for i := range want.Tables {
		w, g := &want.Tables[i], &got.Tables[i]
		if w.Name != g.Name || !slices.Equal(w.Fields, g.Fields) {
			return fmt.Sprintf("table %s fields %v, want table %s fields %v", g.Name, g.Fields, w.Name, w.Fields)
		}
		if o.Opaque {
			continue
		}
		if len(w.Rows) != len(g.Rows) {
			return fmt.Sprintf("table %s: %d rows, want %d", w.Name, len(g.Rows), len(w.Rows))
		}
		d := diffTable(w, g, i == 0, o, sameValue)
		if d != "" && diffTable(w, g, i == 0, o, looseValue) == "" {
			return DynamicKey + "table " + w.Name + ": " + d
		}
		if d != "" {
			return "table " + w.Name + ": " + d
		}
	}
	return ""
}

// DynamicKey starts the description of a difference that is only a
// number shown as a string or the other way round (200 and "200"): a
// dynamic group key shows whichever value of its group came first.
const DynamicKey = "number or string: "

type sameFunc func(a, b any, typ string) bool

func diffTable(w, g *Table, first bool, o Order, same sameFunc) string {
	if first && len(o.Keys) > 0 {
		return diffOrdered(w, g, o, same)
	}
	return diffBag(w.Fields, w.Rows, g.Rows, same)
}

// diffOrdered compares two ordered tables: the sequence of sort keys
// exactly, the rows within each run of equal keys as bags (ties come in
// any order), except a last run that a take cut.
func diffOrdered(w, g *Table, o Order, same sameFunc) string {
	var keys []int
	for _, k := range o.Keys {
		j := slices.IndexFunc(w.Fields, func(f Field) bool { return f.Name == k })
		if j < 0 {
			return diffBag(w.Fields, w.Rows, g.Rows, same) // the key did not survive: compare as a bag
		}
		keys = append(keys, j)
	}
	// Sort keys compare as the sort orders them: 200 and "200" tie.
	sameKeys := func(a, b []any) bool {
		for _, j := range keys {
			if !looseValue(a[j], b[j], w.Fields[j].Type) {
				return false
			}
		}
		return true
	}
	for i := range w.Rows {
		if !sameKeys(w.Rows[i], g.Rows[i]) {
			return fmt.Sprintf("row %d: %s, want %s (ordered by %v)", i, show(g.Rows[i]), show(w.Rows[i]), o.Keys)
		}
	}
	for start := 0; start < len(w.Rows); {
		end := start + 1
		for end < len(w.Rows) && sameKeys(w.Rows[start], w.Rows[end]) {
			end++
		}
		if end == len(w.Rows) && o.Limited {
			break
		}
		if d := diffBag(w.Fields, w.Rows[start:end], g.Rows[start:end], same); d != "" {
			return fmt.Sprintf("rows %d..%d: %s", start, end-1, d)
		}
		start = end
	}
	return ""
}

// diffBag compares two lists of rows as bags.
func diffBag(fields []Field, want, got [][]any, same sameFunc) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	want, got = slices.Clone(want), slices.Clone(got)
	sortRows(fields, want)
	sortRows(fields, got)
	if eachSame(fields, want, got, same) {
		return ""
	}
	// Reals near a rounding edge may sort apart: match greedily.
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && sameRow(fields, w, g, same) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			for j, g := range got {
				if !used[j] {
					return fmt.Sprintf("row %s, want %s", show(g), show(w))
				}
			}
		}
	}
	return ""
}

func eachSame(fields []Field, a, b [][]any, same sameFunc) bool {
	for i := range a {
		if !sameRow(fields, a[i], b[i], same) {
			return false
		}
	}
	return true
}

func sortRows(fields []Field, rows [][]any) {
	keys := make(map[*any]string, len(rows))
	for _, r := range rows {
		if len(r) > 0 {
			keys[&r[0]] = rowKey(fields, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b []any) int {
		if len(a) == 0 || len(b) == 0 {
			return len(a) - len(b)
		}
		return strings.Compare(keys[&a[0]], keys[&b[0]])
	})
}

// rowKey orders rows for the bag comparison; reals are rounded so that
// sums added in another order still sort together.
func rowKey(fields []Field, r []any) string {
	var b strings.Builder
	for j, v := range r {
		if n, ok := v.(json.Number); ok && (fields[j].Type == "float" || fields[j].Type == "real") {
			if f, err := n.Float64(); err == nil {
				b.WriteString(strconv.FormatFloat(f, 'g', 6, 64))
				b.WriteByte('|')
				continue
			}
		}
		js, _ := json.Marshal(v)
		b.Write(js)
		b.WriteByte('|')
	}
	return b.String()
}

func sameRow(fields []Field, a, b []any, same sameFunc) bool {
	for j := range a {
		if !same(a[j], b[j], fields[j].Type) {
			return false
		}
	}
	return true
}

// sameValue compares two cells; reals within tolerance.
func sameValue(a, b any, typ string) bool {
	x, ok1 := a.(json.Number)
	y, ok2 := b.(json.Number)
	if ok1 && ok2 && x != y && (typ == "float" || typ == "real") {
		f, err1 := x.Float64()
		g, err2 := y.Float64()
		if err1 != nil || err2 != nil {
			return false
		}
		return math.Abs(f-g) <= tolerance*math.Max(math.Abs(f), math.Abs(g)) || math.Abs(f-g) < 1e-300
	}
	return reflect.DeepEqual(a, b)
}

// looseValue is sameValue that also takes a number for the string of
// its digits.
func looseValue(a, b any, typ string) bool {
	if sameValue(a, b, typ) {
		return true
	}
	n, ok := a.(json.Number)
	s, ok2 := b.(string)
	if !ok || !ok2 {
		n, ok = b.(json.Number)
		s, ok2 = a.(string)
	}
	if !ok || !ok2 {
		return false
	}
	f, err1 := n.Float64()
	g, err2 := strconv.ParseFloat(s, 64)
	return err1 == nil && err2 == nil && f == g
}

func show(r []any) string {
	js, _ := json.Marshal(r)
	return clip(string(js))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
