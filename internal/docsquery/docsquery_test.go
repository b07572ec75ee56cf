package docsquery

import (
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	page := "content/docs/(query-reference)/apl/tabular-operators/where.mdx"
	src := strings.Join([]string{
		"# where",                    // 1
		"```kusto",                   // 2
		"T | where Predicate",        // 3: a syntax template
		"```",                        // 4
		"<Tabs>",                     // 5
		"  ```kusto APL equivalent",  // 6
		"  // errors only",           // 7
		"  ['sample-http-logs']",     // 8
		"  | where status == '500'",  // 9
		"  ```",                      // 10
		"```sql",                     // 11
		"SELECT 1",                   // 12
		"```",                        // 13
		"```kusto",                   // 14
		"['array_shift_left'](a, 1)", // 15: a function signature
		"```",                        // 16
		"```apl",                     // 17
		"print x = 1",                // 18
		"```",                        // 19
		"```",                        // 20: no language
		"['otel-demo-traces']",       // 21
		"```",                        // 22
		"```",                        // 23: no language, not APL
		"print x = 1",                // 24
		"```",                        // 25
	}, "\n")
	got := Extract(page, []byte(src))
	want := []Query{
		{ID: "apl/tabular-operators/where#1", Page: page, Line: 7,
			APL: "// errors only\n['sample-http-logs']\n| where status == '500'"},
		{ID: "apl/tabular-operators/where#2", Page: page, Line: 18, APL: "print x = 1"},
		{ID: "apl/tabular-operators/where#3", Page: page, Line: 21, APL: "['otel-demo-traces']"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d queries %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("query %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestWriteRead(t *testing.T) {
	qs := []Query{{ID: "a#1", Page: "content/a.mdx", Line: 3, APL: "print \"x\"\n| take 1"}}
	var b strings.Builder
	if err := Write(&b, qs); err != nil {
		t.Fatal(err)
	}
	got, err := Read([]byte(b.String()))
	if err != nil || len(got) != 1 || got[0] != qs[0] {
		t.Fatalf("Read(Write(qs)) = %+v, %v", got, err)
	}
}
