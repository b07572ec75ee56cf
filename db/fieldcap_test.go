package db

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/core/ingest"
)

// The cap holds on every path (a body, a stream, IngestWith), counts the
// fields already stored, and starts again for a dataset deleted and made
// anew.
func TestFieldCap(t *testing.T) {
	d := newDB(t, "logs")
	d.SetFieldLimit(func(name string) int {
		if name == "logs" {
			return 2
		}
		return 0
	})
	nd := ingest.Options{Format: ingest.NDJSON}
	res, err := d.Ingest("logs", []byte("{\"a\":1}\n{\"b\":1,\"c\":2}\n{\"b\":3}\n"), nd)
	if err != nil || res.Ingested != 2 || res.Failed != 1 || !strings.Contains(res.Failures[0].Error, `"b", "c"`) {
		t.Fatalf("body: %+v %v", res.Result, err)
	}
	res, err = d.IngestStream("logs", strings.NewReader("{\"b\":9}\n{\"z\":1}\n"), StreamOptions{Options: nd})
	if err != nil || res.Ingested != 1 || res.Failed != 1 {
		t.Fatalf("stream: %+v %v", res.Result, err)
	}
	res, err = d.IngestWith("logs", 0, func(b *RowsBuilder, now int64) (DecodeResult, error) {
		b.Begin()
		b.SetInt("y", 1)
		b.End(now)
		return DecodeResult{Ingested: 1}, nil
	})
	if err != nil || res.Ingested != 0 || res.Failed != 1 {
		t.Fatalf("IngestWith: %+v %v", res.Result, err)
	}
	if err := d.Delete("logs"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Create("logs"); err != nil {
		t.Fatal(err)
	}
	res, err = d.Ingest("logs", []byte(`{"y":1,"z":2}`), nd)
	if err != nil || res.Ingested != 1 || res.Failed != 0 {
		t.Fatalf("after delete: %+v %v", res.Result, err)
	}
	d.SetFieldLimit(nil)
	if res, _ = d.Ingest("logs", []byte(`{"p":1,"q":2}`), nd); res.Ingested != 1 {
		t.Fatalf("no cap: %+v", res.Result)
	}
}
