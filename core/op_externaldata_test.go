package core

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// externaldata is refused unless the caller supplies a fetcher, and reads
// CSV (with ignoreFirstRecord) and JSON into the declared columns.
func TestExternalData(t *testing.T) {
	e := NewEngine(nil)
	q := `externaldata (name:string, n:long) ["https://example.com/a.csv"] with (format="csv", ignoreFirstRecord=true)`
	if _, err := query(t, e, q); err == nil || !strings.Contains(err.Error(), "externaldata is disabled") {
		t.Fatalf("want disabled error, got %v", err)
	}
	docs := map[string]string{
		"https://example.com/a.csv":  "name,n\nx,1\ny,2\n",
		"https://example.com/b.json": `[{"name":"z","n":3},{"name":"w"}]`,
	}
	fetch := func(r *exec.Request) {
		r.ExternalData = func(url string) ([]byte, error) {
			if d, ok := docs[url]; ok {
				return []byte(d), nil
			}
			return nil, errors.New("not on the allow-list")
		}
	}
	r := mustQuery(t, e, q+` | summarize sum(n)`, fetch)
	if got := rows(r)[0][0]; got != int64(3) {
		t.Errorf("csv sum = %v", got)
	}
	r = mustQuery(t, e, `externaldata (name:string, n:long) ["https://example.com/b.json"] with (format="json") | where isnull(n) | project name`, fetch)
	if got := rows(r); len(got) != 1 || got[0][0] != "w" {
		t.Errorf("json rows = %v", got)
	}
	if _, err := query(t, e, `externaldata (a:string) ["https://evil.example/x"]`, fetch); err == nil || !strings.Contains(err.Error(), "allow-list") {
		t.Errorf("want fetch error, got %v", err)
	}
}

// Documents are decoded by core/ingest, as ingest bodies are, into the
// declared columns: CSV cells keep their text for string columns and are
// parsed for typed ones (a short row's missing cells are null, cells past
// the declared columns ignored); JSON integers stay exact, objects stay
// one dynamic value, a declared _time is data; a broken document is an
// error naming the URL and the place.
func TestExternalDataDecoders(t *testing.T) {
	docs := map[string]string{
		"u/a.csv":    "s,n,t\n1.50,42,2024-01-02T03:04:05Z\n007,,\nTRUE,7,2024-01-03T00:00:00Z,extra\n",
		"u/a.tsv":    "x y\t1\n",
		"u/a.json":   `[{"big":9007199254740993,"obj":{"k":[1,2.5]},"_time":"2024-01-02T03:04:05Z"}]`,
		"u/m.json":   "{\"big\":1}\n{\"big\":2,\"obj\":\"s\"}\n",
		"u/a.txt":    "line one\nline two\n",
		"u/bad.json": `[{"big":1},`,
	}
	fetch := func(r *exec.Request) {
		r.ExternalData = func(url string) ([]byte, error) { return []byte(docs[url]), nil }
	}
	e := NewEngine(nil)
	cases := []struct {
		apl  string
		want [][]any
	}{
		{`externaldata (s:string, n:long, t:datetime) ["u/a.csv"] with (ignoreFirstRecord=true) | extend t = tostring(t)`,
			[][]any{{"1.50", int64(42), "2024-01-02T03:04:05Z"}, {"007", nil, ""}, {"TRUE", int64(7), "2024-01-03T00:00:00Z"}}},
		{`externaldata (a:string, b:long) ["u/a.tsv"] with (format="tsv")`, [][]any{{"x y", int64(1)}}},
		{`externaldata (big:long, obj:dynamic, _time:string) ["u/a.json"] with (format="json") | extend obj = tostring(obj)`,
			[][]any{{int64(9007199254740993), `{"k":[1,2.5]}`, "2024-01-02T03:04:05Z"}}},
		{`externaldata (big:long, obj:dynamic) ["u/m.json"] with (format="multijson")`, [][]any{{int64(1), nil}, {int64(2), "s"}}},
		{`externaldata (line:string) ["u/a.txt"] with (format="txt")`, [][]any{{"line one"}, {"line two"}}},
	}
	for _, c := range cases {
		r := mustQuery(t, e, c.apl, fetch)
		if got := rows(r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", c.apl, got, c.want)
		}
	}
	_, err := query(t, e, `externaldata (big:long) ["u/bad.json"] with (format="json")`, fetch)
	if err == nil || !strings.Contains(err.Error(), "externaldata u/bad.json:") {
		t.Errorf("broken JSON: %v", err)
	}
}
