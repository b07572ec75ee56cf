package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tracesNDJSON = `{"_time":"2024-01-01T00:00:00Z","service":"frontend","duration":"250ms","attributes":{"custom":{"http.route":"/a"}}}
{"_time":"2024-01-01T00:00:01Z","service":"cart","duration":1500000000,"attributes":{"custom":{"http.route":"/b"}}}
{"_time":"2024-01-01T00:00:02Z","service":"frontend","duration":"00:00:02","attributes":{"custom":{"http.route":"/a"}}}
{"_time":"2024-01-01T00:00:03Z","service":"cart","duration":"soon"}
`

// A trace query written for the server runs over an exported file once
// the file declares the map field and the timespan, as the server's
// dataset settings and OTLP ingest would.
func TestQueryMapFieldAndType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.ndjson")
	if err := os.WriteFile(path, []byte(tracesNDJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	q := "traces | summarize d = sum(duration), t = max(gettype(duration)) by route = tostring(['attributes.custom']['http.route']) | sort by route asc"
	out, stderr, code := aplite(t, "", "query", "-format", "csv", "-in", "traces="+path,
		"-map-field", "traces=attributes.custom", "-type", "traces=duration:timespan", q)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "route,d,t\n,,null\n/a,2.25s,timespan\n/b,1.5s,timespan\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(stderr, "1 value(s) of duration could not be read as timespan") {
		t.Errorf("the unreadable duration is not reported: %q", stderr)
	}

	// Without the declaration the object is flattened into dotted fields,
	// so the map field the query reads does not exist.
	_, stderr, code = aplite(t, "", "query", "-format", "csv", "-in", "traces="+path, q)
	if code != 1 || !strings.Contains(stderr, `unknown field or variable "attributes.custom"`) {
		t.Errorf("undeclared: exit %d, %q", code, stderr)
	}
}

func TestQueryFieldDeclErrors(t *testing.T) {
	in := "logs=" + filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-type", "logs=status"}, "want NAME=FIELD:TYPE"},
		{[]string{"-type", "logs=status:interval"}, "want NAME=FIELD:TYPE"},
		{[]string{"-type", "other=status:long"}, "no -in other=PATH"},
		{[]string{"-map-field", "logs"}, "want NAME=FIELD"},
		{[]string{"-map-field", "nope=geo"}, "no -in nope=PATH"},
	} {
		args := append([]string{"query", "-in", in}, c.args...)
		_, stderr, code := aplite(t, "", append(args, "logs | count")...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want exit 2 and %q)", c.args, code, stderr, c.want)
		}
	}
}
