package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/vector"
)

// write renders o in format and returns the text.
func write(t *testing.T, format string, o *output.Output, limit int) (string, int) {
	t.Helper()
	var b bytes.Buffer
	more, err := Write(&b, format, o, limit)
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return b.String(), more
}

// Every text format of the same rows: nulls, a NaN, a timespan, dynamic
// values (map keys sorted), the column order kept.
func TestTextFormats(t *testing.T) {
	want := map[string]string{
		"csv": "_time,_sysTime,status,took,ratio,tags\n" +
			"2026-11-01T10:00:00Z,2026-11-01T10:00:05Z,200,1.5s,,\"[\"\"a\"\",1]\"\n" +
			"2026-11-01T10:00:01Z,,,0s,0.5,\"{\"\"k\"\":\"\"2s\"\"}\"\n",
		"ndjson": `{"_time":"2026-11-01T10:00:00Z","_sysTime":"2026-11-01T10:00:05Z","status":200,"took":"1.5s","ratio":null,"tags":["a",1]}` + "\n" +
			`{"_time":"2026-11-01T10:00:01Z","_sysTime":null,"status":null,"took":"0s","ratio":0.5,"tags":{"k":"2s"}}` + "\n",
		"rows": `[{"_time":"2026-11-01T10:00:00Z","_sysTime":"2026-11-01T10:00:05Z","status":200,"took":"1.5s","ratio":null,"tags":["a",1]},` + "\n" +
			`{"_time":"2026-11-01T10:00:01Z","_sysTime":null,"status":null,"took":"0s","ratio":0.5,"tags":{"k":"2s"}}]` + "\n",
		"table": "_time                 _sysTime              status  took  ratio  tags\n" +
			"2026-11-01T10:00:00Z  2026-11-01T10:00:05Z  200     1.5s         [\"a\",1]\n" +
			"2026-11-01T10:00:01Z                                0s    0.5    {\"k\":\"2s\"}\n",
	}
	for format, w := range want {
		if got, more := write(t, format, rawEvents(), 0); got != w || more != 0 {
			t.Errorf("%s (%d more):\n%s\nwant\n%s", format, more, got, w)
		}
	}
	got, _ := write(t, "", rawEvents(), 0)
	if got != want["table"] {
		t.Errorf("no format is not a table:\n%s", got)
	}
	if got, _ := write(t, "json", rawEvents(), 0); !strings.HasPrefix(got, `{"format":"tabular","status":{"elapsedTime":1500,`) || !strings.HasSuffix(got, "}\n") {
		t.Errorf("json: %s", got)
	}
}

// A table cut at limit rows says how many it left out; the other formats
// never cut.
func TestTextLimit(t *testing.T) {
	o := &output.Output{Table: output.Table{Rows: 3, Columns: []output.Column{col("n", vector.Int, int64(1), int64(2), int64(3))}}}
	if got, more := write(t, "table", o, 2); got != "n\n1\n2\n" || more != 1 {
		t.Errorf("table of 3 cut at 2: %q, %d more", got, more)
	}
	if got, more := write(t, "table", o, 3); got != "n\n1\n2\n3\n" || more != 0 {
		t.Errorf("table of 3 cut at 3: %q, %d more", got, more)
	}
	if got, more := write(t, "csv", o, 2); got != "n\n1\n2\n3\n" || more != 0 {
		t.Errorf("csv with a limit: %q, %d more", got, more)
	}
}

// No rows: a header for a table and CSV, an empty array for rows,
// nothing for NDJSON.
func TestTextEmpty(t *testing.T) {
	o := &output.Output{Table: output.Table{Columns: []output.Column{col("a", vector.String), col("b", vector.Int)}}}
	for format, want := range map[string]string{"table": "a  b\n", "csv": "a,b\n", "rows": "[]\n", "ndjson": ""} {
		if got, _ := write(t, format, o, 0); got != want {
			t.Errorf("%s of no rows: %q, want %q", format, got, want)
		}
	}
}

func TestTextUnknownFormat(t *testing.T) {
	_, err := Write(&bytes.Buffer{}, "xml", rawEvents(), 0)
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("xml: %v", err)
	}
}
