package otlp

import (
	"context"
	"errors"
	"testing"

	"github.com/aplite/aplite/db"
)

func newDB(t *testing.T, datasets ...string) *db.DB {
	t.Helper()
	d := db.OpenMemory(db.Options{Store: db.StoreOptions{NoSync: true}})
	t.Cleanup(func() { d.Close() })
	for _, name := range datasets {
		if _, err := d.Create(name); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func count(t *testing.T, d *db.DB, name string) int64 {
	t.Helper()
	o, err := d.Query(context.Background(), &db.Request{APL: "['" + name + "'] | count", DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return o.Value(0, 0).(int64)
}

// An OTLP logs export in its JSON form is stored through the same path as
// any ingest body: one event per log record, counted in the result.
func TestIngestOTLPLogs(t *testing.T) {
	d := newDB(t, "logs")
	body := []byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},
		"scopeLogs":[{"logRecords":[
			{"timeUnixNano":"1700000000000000000","severityText":"INFO","body":{"stringValue":"one"}},
			{"timeUnixNano":"1700000001000000000","severityText":"WARN","body":{"stringValue":"two"}}]}]}]}`)
	res, err := Ingest(d, "logs", body, Logs, true)
	if err != nil || res.Ingested != 2 || res.ProcessedBytes != int64(len(body)) {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	if n := count(t, d, "logs"); n != 2 {
		t.Fatalf("count %d, want 2", n)
	}
	info, err := d.Info("logs")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"service.name": "string", "severity_text": "string", "body": "string"}
	for _, f := range db.Fields(info.Fields) {
		if typ, ok := want[f.Name]; ok && typ != f.Type {
			t.Errorf("%s is %s, want %s", f.Name, f.Type, typ)
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("fields missing: %v", want)
	}
}

// A body that is not OTLP is the caller's fault (*OTLPError, a 400) and
// stores nothing; a dataset that does not exist is ErrNotFound.
func TestIngestOTLPErrors(t *testing.T) {
	d := newDB(t, "traces")
	_, err := Ingest(d, "traces", []byte("not protobuf at all"), Traces, false)
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("bad body: %v, want an *Error", err)
	}
	if n := count(t, d, "traces"); n != 0 {
		t.Fatalf("a bad body stored %d events", n)
	}
	if _, err := Ingest(d, "nope", nil, Metrics, true); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("missing dataset: %v, want ErrNotFound", err)
	}
}
