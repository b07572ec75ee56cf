package inspect

import "testing"

// A take of N rows through row-by-row operators may stop after N
// answers; anything that looks at more than one row at a time may not.
func TestTake(t *testing.T) {
	cases := []struct {
		apl string
		n   int64
		ok  bool
	}{
		{"logs | take 10", 10, true},
		{"logs | limit 3", 3, true},
		{"logs | take 0", 0, true},
		{"logs | where status > 400 | extend x = 1 | project x, uri | take 5", 5, true},
		{"logs | project-away a | project-keep b | project-rename c = b | take 2", 2, true},
		{"logs | parse uri with '/' a '/' b | take 7", 7, true},
		{"logs | parse-where uri with '/' a | take 7", 7, true},
		{"logs", 0, false},
		{"other | take 10", 0, false},                           // another dataset
		{"['logs-*'] | take 10", 0, false},                      // a pattern
		{"let n = 5; logs | take 10", 0, false},                 // a statement first
		{"logs | take 10 | where x > 1", 0, false},              // not last
		{"logs | sort by _time desc | take 10", 0, false},       // needs every row
		{"logs | summarize count() by uri | take 10", 0, false}, // needs every row
		{"logs | take 2 * 5", 0, false},                         // not a literal
		{"logs | take 1.5", 0, false},                           // not an integer
		{"logs | mv-expand tags | take 10", 0, false},
		{"print x = 1 | take 1", 0, false},
	}
	for _, c := range cases {
		n, ok := mustParse(t, c.apl).Take("logs")
		if n != c.n || ok != c.ok {
			t.Errorf("%s: take %d %v, want %d %v", c.apl, n, ok, c.n, c.ok)
		}
	}
}

// Only a bare dataset name is its dataset's rows as they are.
func TestTable(t *testing.T) {
	cases := []struct {
		apl, table string
		ok         bool
	}{
		{"logs", "logs", true},
		{"['my logs']", "my logs", true},
		{"logs | take 1", "", false},
		{"['logs-*']", "", false},
		{"let x = 1; logs", "", false},
		{"print 1", "", false},
		{"datatable(a:long)[1]", "", false},
	}
	for _, c := range cases {
		table, ok := mustParse(t, c.apl).Table()
		if table != c.table || ok != c.ok {
			t.Errorf("%s: table %q %v, want %q %v", c.apl, table, ok, c.table, c.ok)
		}
	}
}
