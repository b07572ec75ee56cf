package db

import (
	"errors"
	"testing"
)

// An OTLP logs export in its JSON form is stored through the same path as
// any ingest body: one event per log record, counted in the result.
func TestIngestOTLPLogs(t *testing.T) {
	d := newDB(t, "logs")
	body := []byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},
		"scopeLogs":[{"logRecords":[
			{"timeUnixNano":"1700000000000000000","severityText":"INFO","body":{"stringValue":"one"}},
			{"timeUnixNano":"1700000001000000000","severityText":"WARN","body":{"stringValue":"two"}}]}]}]}`)
	res, err := d.IngestOTLP("logs", body, OTLPLogs, true)
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
	for _, f := range Fields(info.Fields) {
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
	_, err := d.IngestOTLP("traces", []byte("not protobuf at all"), OTLPTraces, false)
	var oe *OTLPError
	if !errors.As(err, &oe) {
		t.Fatalf("bad body: %v, want an *OTLPError", err)
	}
	if n := count(t, d, "traces"); n != 0 {
		t.Fatalf("a bad body stored %d events", n)
	}
	if _, err := d.IngestOTLP("nope", nil, OTLPMetrics, true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing dataset: %v, want ErrNotFound", err)
	}
}
