package inspect

import (
	"reflect"
	"testing"
)

func mustParse(t *testing.T, apl string) *Query {
	t.Helper()
	q, err := Parse(apl)
	if err != nil {
		t.Fatalf("%s: %v", apl, err)
	}
	return q
}

// The datasets a query names, and whether it may read any, decide which
// lazily loaded datasets a query makes the browser read more of.
func TestReadsTables(t *testing.T) {
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
		r := mustParse(t, c.apl).Reads()
		if !reflect.DeepEqual(r.Tables, c.tables) || r.AnyTable != c.any || (r.Keep == nil) != c.all {
			t.Errorf("%s: tables %v any %v keeps all %v; want %v %v %v", c.apl, r.Tables, r.AnyTable, r.Keep == nil, c.tables, c.any, c.all)
		}
	}
	if _, err := Parse("logs | where"); err == nil {
		t.Error("a query that does not parse was inspected")
	}
}

// The fields a query may read: what a loader keeps of a file.
func TestReadsFields(t *testing.T) {
	cases := []struct {
		apl       string
		all       bool
		kept, not []string
	}{
		{"logs | summarize count() by status", false, []string{"status"}, []string{"uri"}},
		{"logs | where geo.city == 'Oslo' | summarize avg(d) by method", false, []string{"geo", "geo.city", "d", "method"}, []string{"geo.country", "uri"}},
		{"logs | extend x = column_ifexists('uri', '') | project x", false, []string{"uri"}, []string{"status"}},
		{"logs | take 10", true, nil, nil},
		{"logs | where status > 1", true, nil, nil},
		{"logs | project-away a | summarize count()", true, nil, nil},
		{"logs | summarize count() by bin_auto(_time) | join (other) on x", true, nil, nil},
		{"search 'x' | count", true, nil, nil},
		{"logs | summarize make_bag(pack_all())", true, nil, nil},
		{"logs | project * | count", true, nil, nil},
	}
	for _, c := range cases {
		r := mustParse(t, c.apl).Reads()
		if (r.Keep == nil) != c.all {
			t.Errorf("%s: keeps all = %v, want %v", c.apl, r.Keep == nil, c.all)
			continue
		}
		for _, f := range c.kept {
			if !r.Keep(f) || !r.Mentions(f) {
				t.Errorf("%s: drops %s", c.apl, f)
			}
		}
		for _, f := range c.not {
			if r.Keep(f) {
				t.Errorf("%s: keeps %s", c.apl, f)
			}
		}
	}
	// Mentions is set even when every field may be read.
	if r := mustParse(t, "logs | where geo.city == 'x'").Reads(); r.Keep != nil || !r.Mentions("geo.city") || r.Mentions("uri") {
		t.Errorf("mentions of a raw-row query: keep nil %v, geo.city %v, uri %v", r.Keep == nil, r.Mentions("geo.city"), r.Mentions("uri"))
	}
}
