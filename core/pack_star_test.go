package core

import (
	"encoding/json"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// pack(*) packs every column of its input, as Axiom's performance guide
// uses it (`project … | extend event = pack(*)`).
func TestPackStar(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, false)))
	for _, q := range []string{
		"logs | sort by _time asc | take 1 | project method, status | extend event = pack(*) | project event",
		"logs | sort by _time asc | take 1 | project method, status | extend event = bag_pack(*) | project event",
	} {
		r := mustQuery(t, e, q)
		got, _ := json.Marshal(rows(r))
		if want := `[[{"method":"GET","status":301}]]`; string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	// The star stands for columns only as pack's sole argument.
	if _, err := query(t, e, "logs | extend x = pack('a', *)"); err == nil {
		t.Error("pack('a', *) compiled")
	}
}
