package ingest

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/core/store"
)

// Keep builds only the columns it accepts; skipped values are still
// checked, so a broken body is still an error.
func TestKeepProjectsFields(t *testing.T) {
	keep := map[string]bool{"a": true, "geo": true, "geo.city": true}
	opts := Options{Format: NDJSON, Keep: func(p string) bool { return keep[p] }}
	body := `{"_time":"2024-01-01T00:00:00Z","a":1,"b":"x","geo":{"city":"Oslo","country":"NO"},"c":[1,{"d":2}]}
{"a":2.5,"b":{"deep":[true,null]},"geo":{"city":"Rome"}}
`
	b := store.NewRowsBuilder()
	res, err := Decode([]byte(body), opts, b)
	if err != nil || res.Ingested != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	rows := b.Finish(0)
	var names []string
	for _, k := range rows.Keys {
		names = append(names, k.Name+":"+k.Type.String())
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"a:", "geo.city:"} {
		if !strings.Contains(got, want) {
			t.Errorf("columns %q lack %s", got, want)
		}
	}
	for _, gone := range []string{"b:", "geo.country", "c:"} {
		if strings.Contains(got, gone) {
			t.Errorf("columns %q hold %s, which Keep rejects", got, gone)
		}
	}
	if rows.Time[0] == 0 {
		t.Error("the time field was not read")
	}
	if _, err := Decode([]byte(`{"a":1,"b":[1,2}`+"\n"), opts, store.NewRowsBuilder()); err == nil {
		t.Error("a syntax error inside a skipped field was accepted")
	}
	csvOpts := Options{Format: CSV, Keep: func(p string) bool { return p == "x" }}
	b = store.NewRowsBuilder()
	if _, err := Decode([]byte("x,y\n1,2\n3,4\n"), csvOpts, b); err != nil {
		t.Fatal(err)
	}
	if r := b.Finish(0); len(r.Keys) != 1 || r.Keys[0].Name != "x" {
		t.Errorf("CSV columns %v, want only x", r.Keys)
	}
}
