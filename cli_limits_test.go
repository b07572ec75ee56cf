package main

import (
	"strings"
	"testing"
)

// `aplite query` and `aplite fmt` refuse a query past the parser's limits
// with the position and the limit and exit 1; a 6 MB chain of `+`
// overflowed the stack (exit 2 and a goroutine dump) after 50 s.
func TestQueryPastTheLimits(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"print x = 1" + strings.Repeat("+1", 3_000_000), "1:1048577: the query is 6000011 bytes long, over the limit of 1048576 bytes (1 MiB)\n"},
		{"print x = 1\n| where x == 1" + strings.Repeat(" or x == 1", 3_000), "2:9: the expression starting here nests deeper than 1000 levels"},
		{"let t = t | take 1;\nt | count", "1:9: let t uses itself here"},
	} {
		for _, cmd := range []string{"query", "fmt"} {
			args := []string{cmd}
			if cmd == "query" {
				args = append(args, "-")
			}
			out, stderr, code := aplite(t, tc.src, args...)
			if code != 1 || out != "" || !strings.HasPrefix(stderr, tc.want) {
				t.Errorf("aplite %s %.30q…: exit %d, stdout %.50q, stderr %.300q; want exit 1 and %q", cmd, tc.src, code, out, stderr, tc.want)
			}
		}
	}
}
