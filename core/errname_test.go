package core

import (
	"testing"
)

// An alias is named as the query wrote it, once.
func TestAliasNamedAsCalled(t *testing.T) {
	for q, want := range map[string]string{
		`print y = pack("a")`:     `1:11: pack takes keys and values in pairs, got 1 arguments`,
		`print y = bag_pack("a")`: `1:11: bag_pack takes keys and values in pairs, got 1 arguments`,
	} {
		_, err := query(t, NewEngine(nil), q)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", q, err, want)
		}
	}
}
