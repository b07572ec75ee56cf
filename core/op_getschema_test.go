package core

import (
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// getschema over a dataset lists system fields first, then the others
// alphabetically, with the mixed-type field as dynamic.
func TestGetschemaDataset(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, false)))
	got := rows(mustQuery(t, e, "logs | getschema | project ColumnName, ColumnType | take 4"))
	want := [][]any{{"_sysTime", "datetime"}, {"_time", "datetime"}, {"geo.city", "string"}, {"geo.country", "string"}}
	for i := range want {
		if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
			t.Fatalf("getschema: %v", got)
		}
	}
	st := rows(mustQuery(t, e, "logs | getschema | where ColumnName == 'status' | project ColumnType"))
	if st[0][0] != "dynamic" {
		t.Errorf("status type %v, want dynamic (it holds ints and strings)", st[0][0])
	}
}
