package inspect

import (
	"reflect"
	"testing"
)

// Every dataset a query names is listed with its position, including the
// ones inside joins, unions, lookups and let statements.
func TestDatasets(t *testing.T) {
	cases := []struct {
		apl  string
		want []Dataset
	}{
		{"logs | count", []Dataset{{Name: "logs", Line: 1, Col: 1}}},
		{"a\n| join (['b c']) on x\n| union ['logs-*']", []Dataset{
			{Name: "a", Line: 1, Col: 1}, {Name: "b c", Line: 2, Col: 9}, {Name: "logs-*", Line: 3, Col: 9, Pattern: true}}},
		{"let t = secret | where x > 1; print 1", []Dataset{{Name: "secret", Line: 1, Col: 9}}},
		{"logs | lookup (dim) on k", []Dataset{{Name: "logs", Line: 1, Col: 1}, {Name: "dim", Line: 1, Col: 16}}},
		{"print 1", nil},
	}
	for _, c := range cases {
		if got := mustParse(t, c.apl).Datasets(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, want %+v", c.apl, got, c.want)
		}
	}
}
