package session

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A file streamed in slices of whole lines holds what loading it whole
// holds, for NDJSON and for CSV (whose header comes in the first slice).
func TestStreamedLoad(t *testing.T) {
	var nd, cs strings.Builder
	cs.WriteString("status,uri\n")
	for i := 0; i < 5000; i++ {
		nd.WriteString(`{"status":` + []string{"200", "404", "500"}[i%3] + `,"uri":"/x"}` + "\n")
		cs.WriteString([]string{"200", "404", "500"}[i%3] + ",/x\n")
	}
	for _, c := range []struct{ format, text string }{{NDJSON, nd.String()}, {CSV, cs.String()}} {
		s := New()
		l, err := s.BeginLoad("f", c.format, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		text := c.text
		for len(text) > 0 {
			cut := min(len(text), 7000)
			if i := strings.LastIndexByte(text[:cut], '\n'); i >= 0 && cut < len(text) {
				cut = i + 1
			}
			if _, err := l.Chunk([]byte(text[:cut])); err != nil {
				t.Fatal(err)
			}
			text = text[cut:]
		}
		res, err := l.End()
		if err != nil || res.Ingested != 5000 || res.Failed != 0 {
			t.Fatalf("%s: %+v %v", c.format, res, err)
		}
		tr, err := s.Query(context.Background(), "['f'] | where status == 404 | count", QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Tables[0].Columns[0][0]; got != int64(1667) {
			t.Errorf("%s: %v rows with status 404, want 1667", c.format, got)
		}
	}
	if _, err := New().BeginLoad("f", JSON, time.Time{}); err == nil {
		t.Error("a JSON array was accepted for streaming")
	}
}
