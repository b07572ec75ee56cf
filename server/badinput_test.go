package server

import (
	"strings"
	"testing"
)

// A JSON body nested 100,000 deep is refused with sonic's message made
// readable: one line, unquoted, with the byte index at fault (it was a
// quoted string carrying escaped newlines and an ASCII-art excerpt).
func TestDeepJSONBodyMessage(t *testing.T) {
	ts := newTestServer(t)
	d := 100_000
	body := `{"name":"g","x":` + strings.Repeat("[", d) + strings.Repeat("]", d) + `}`
	got := ts.must(req{method: "POST", path: "/v2/rbac/groups", body: body}, 400)
	var e struct{ Message string }
	got.json(t, &e)
	if !strings.HasPrefix(e.Message, "invalid JSON body: Syntax error at index ") || !strings.Contains(e.Message, "max depth") ||
		strings.ContainsAny(e.Message, "\"\n\\") {
		t.Fatalf("message %q: want one unquoted line with the index", e.Message)
	}
}
