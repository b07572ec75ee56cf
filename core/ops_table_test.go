package core

import (
	"reflect"
	"strings"
	"testing"
)

// opCase is one query over a small datatable and its expected rows (or
// an error containing err).
type opCase struct {
	q    string
	cols []string
	rows [][]any
	err  string
}

// tbl is the input most operator tests share.
const tbl = `datatable(k:string, v:long, r:real, t:datetime) [
 "a", 1, 1.5, datetime(2024-01-01T00:00:00Z),
 "b", 2, real(null), datetime(2024-01-01T00:01:00Z),
 "a", 3, 0.5, datetime(2024-01-01T00:02:00Z),
 "c", long(null), 2.5, datetime(2024-01-01T00:03:00Z)]`

// runOpCases runs cases through the engine and compares column names and
// rows (in order).
func runOpCases(t *testing.T, cases []opCase) {
	t.Helper()
	e := NewEngine(nil)
	for _, c := range cases {
		q := strings.ReplaceAll(c.q, "T |", tbl+" |")
		r, err := query(t, e, q)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: want error %q, got %v", c.q, c.err, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if names, _ := r.Columns(); c.cols != nil && !reflect.DeepEqual(names, c.cols) {
			t.Errorf("%s: columns %v, want %v", c.q, names, c.cols)
		}
		if got := rows(r); !reflect.DeepEqual(got, c.rows) && !(len(got) == 0 && len(c.rows) == 0) {
			t.Errorf("%s:\n got  %v\n want %v", c.q, got, c.rows)
		}
	}
}
