package core

import (
	"errors"
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
