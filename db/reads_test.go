package db

import (
	"reflect"
	"testing"
)

// The datasets a query names, and whether it may read any, decide which
// lazily loaded datasets a query makes the browser read more of.
func TestQueryReadsTables(t *testing.T) {
	cases := []struct {
		apl    string
		tables []string
		any    bool
		all    bool // Keep is nil
	}{
		{"['events'] | summarize count() by status", []string{"events"}, false, false},
		{"logs | take 10", []string{"logs"}, false, true},
		{"['logs-*'] | count", []string{"logs-*"}, true, false},
		{"search 'x' | count", nil, true, true},
		{"a | join (b) on x | count", []string{"a", "b"}, false, true},
		{"print x = 1", nil, false, true},
	}
	for _, c := range cases {
		r, err := QueryReads(c.apl)
		if err != nil {
			t.Fatalf("%s: %v", c.apl, err)
		}
		if !reflect.DeepEqual(r.Tables, c.tables) || r.AnyTable != c.any || (r.Keep == nil) != c.all {
			t.Errorf("%s: tables %v any %v keeps all %v; want %v %v %v", c.apl, r.Tables, r.AnyTable, r.Keep == nil, c.tables, c.any, c.all)
		}
	}
	if _, err := QueryReads("logs | where"); err == nil {
		t.Error("a query that does not parse was read")
	}
}
