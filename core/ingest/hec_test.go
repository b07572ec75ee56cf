package ingest

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/store"
)

// hecRun converts a HEC body and decodes the NDJSON it became.
func hecRun(t *testing.T, body string) ([]event, HECBatch, Result) {
	t.Helper()
	nd, b, err := HECEvents(nil, []byte(body))
	if err != nil {
		t.Fatalf("HECEvents(%q): %v", body, err)
	}
	if got := strings.Count(string(nd), "\n"); got != b.Events {
		t.Fatalf("%d lines for %d envelopes:\n%s", got, b.Events, nd)
	}
	evs, res, _, err := run(t, string(nd), Options{Format: NDJSON})
	if err != nil {
		t.Fatalf("decode %q: %v", nd, err)
	}
	return evs, b, res
}

// The bodies are Splunk's own examples ("Format events for HTTP Event
// Collector", help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/
// format-events-for-http-event-collector, less the "// epoch time" comment
// its example carries), and the batch of its "HTTP Event Collector
// examples" page, envelopes back to back.
func TestHECEventsSplunkExamples(t *testing.T) {
	evs, b, _ := hecRun(t, `{
    "time": 1426279439,
    "host": "localhost",
    "source": "random-data-generator",
    "sourcetype": "my_sample_data",
    "index": "main",
    "event": "Hello world!"
}`)
	want := []event{{"_time": int64(1426279439) * 1e9, "host": "localhost", "source": "random-data-generator",
		"sourcetype": "my_sample_data", "index": "main", "_raw": "Hello world!"}}
	if b.Index != "main" || !reflect.DeepEqual(evs, want) {
		t.Errorf("metadata example: index %q, events %v, want %v", b.Index, evs, want)
	}

	evs, _, _ = hecRun(t, `{"time": 1437522387, "host": "dataserver992.example.com", "source": "testapp", "event": { "message": "Something happened", "severity": "INFO" }, "fields": {"region": "us-west-1", "datacenter": "us-west-1a", "rack": "63"}}`)
	want = []event{{"_time": int64(1437522387) * 1e9, "host": "dataserver992.example.com", "source": "testapp",
		"message": "Something happened", "severity": "INFO", "region": "us-west-1", "datacenter": "us-west-1a", "rack": "63"}}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("fields example: %v, want %v", evs, want)
	}

	evs, b, _ = hecRun(t, `{"event": "Pony 1 has left the barn"}{"event": "Pony 2 has left the barn"}{"event": "Pony 3 has left the barn", "nested": {"key1": "value1"}}`)
	if b.Events != 3 || b.Index != "" || len(evs) != 3 || evs[2]["_raw"] != "Pony 3 has left the barn" || evs[2]["nested.key1"] != "value1" {
		t.Errorf("batch example: %d envelopes, index %q, events %v", b.Events, b.Index, evs)
	}
	for _, e := range evs {
		if e["_time"] != testNow {
			t.Errorf("an envelope without time takes the ingest time: %v", e)
		}
	}
}

// time is seconds (fractional), milliseconds or RFC 3339, as a number or
// a string; null is the ingest time.
func TestHECEventsTime(t *testing.T) {
	const sec = int64(1704164645)
	for _, tc := range []struct {
		time string
		want int64
	}{
		{`1704164645`, sec * 1e9},
		{`1704164645.25`, sec*1e9 + 250e6},
		{`"1704164645.125"`, sec*1e9 + 125e6},
		{`1704164645123`, sec*1e9 + 123e6},
		{`"2024-01-02T03:04:05.5Z"`, sec*1e9 + 500e6},
		{`"2024-01-02T05:04:05+02:00"`, sec * 1e9},
		{`null`, testNow},
	} {
		evs, _, _ := hecRun(t, `{"time":`+tc.time+`,"event":{"a":1}}`)
		if len(evs) != 1 || evs[0]["_time"] != tc.want {
			t.Errorf("time %s: %v, want _time %d", tc.time, evs, tc.want)
		}
	}
	// The envelope's time wins over an event's own _time.
	if evs, _, _ := hecRun(t, `{"time":1704164645,"event":{"_time":1,"a":1}}`); evs[0]["_time"] != sec*1e9 {
		t.Errorf("envelope time and event _time: %v", evs)
	}
	// A time Decode cannot read fails that event alone, naming it.
	_, _, res := hecRun(t, `{"event":"ok"}
{"time":"yesterday","event":"bad"}`)
	if res.Ingested != 1 || res.Failed != 1 || !strings.HasPrefix(res.Failures[0].Error, "line 2:") {
		t.Errorf("bad time: %+v", res)
	}
}

// The envelope's keys win over the event's and the fields' of the same
// name; members keep their types; newlines inside values do not split the
// line; other event values are _raw as they are.
func TestHECEventsMerge(t *testing.T) {
	evs, _, _ := hecRun(t, "{\"host\":\"envelope\",\"fields\":{\"host\":\"fields\",\"f\":[\"a\",\"b\"]},\n \"event\":{\n\"host\":\"event\",\n\"n\":1.5,\"ok\":true,\"geo\":{\"city\":\"x\"}}}\n\n"+
		`{"event":42} {"event":["x"]} {"event":{}} {"event":"a\nb \"q\""}`)
	if len(evs) != 5 {
		t.Fatalf("%d events: %v", len(evs), evs)
	}
	e := evs[0]
	if e["host"] != "envelope" || e["n"] != 1.5 || e["ok"] != true || e["geo.city"] != "x" || !reflect.DeepEqual(e["f"], []any{"a", "b"}) {
		t.Errorf("merged event %v", e)
	}
	if evs[1]["_raw"] != int64(42) || !reflect.DeepEqual(evs[2]["_raw"], []any{"x"}) || len(evs[3]) != 1 || evs[4]["_raw"] != "a\nb \"q\"" {
		t.Errorf("other events %v", evs[1:])
	}
}

// A body HEC refuses names the envelope (from 0), the byte and the HEC
// code, and converts to nothing.
func TestHECEventsRefused(t *testing.T) {
	for _, tc := range []struct {
		body       string
		code, ev   int
		msgContain string
	}{
		{`{"event":"a"}{"time":1}`, HECEventRequired, 1, `no "event"`},
		{`{"event":"a"} {"event":""}`, HECEventBlank, 1, `"event" is empty`},
		{`{"event":null}`, HECEventBlank, 0, `"event" is empty`},
		{`{"event":"a","fields":"x"}`, HECFieldsInvalid, 0, `"fields" must be an object, not a string`},
		{`{"event":"a","index":{"x":1}}`, HECIncorrectIdx, 0, `"index" must be a string, not an object`},
		{`{"event":"a"}{"event":"b",}`, HECInvalidFormat, 1, "invalid JSON"},
		{`{"event":"a"}[{"event":"b"}]`, HECInvalidFormat, 1, "expected an event envelope"},
		{`{"event":"a"`, HECInvalidFormat, 0, "invalid JSON"},
		{`{"event":"a" "x":1}`, HECInvalidFormat, 0, "after object key:value pair"},
		{`hello`, HECInvalidFormat, 0, `found character 'h'`},
	} {
		nd, _, err := HECEvents(nil, []byte(tc.body))
		var he *HECError
		if !errors.As(err, &he) || he.Code != tc.code || he.Event != tc.ev || !strings.Contains(he.Error(), tc.msgContain) || nd != nil {
			t.Errorf("%s: %v (%+v), want code %d at event %d containing %q", tc.body, err, he, tc.code, tc.ev, tc.msgContain)
		}
	}
}

// The index of the first envelope is the batch's; a later one is only a
// field.
func TestHECEventsIndex(t *testing.T) {
	evs, b, _ := hecRun(t, `{"event":"a","index":"logs\u0031"}{"event":"b","index":"other"}`)
	if b.Index != "logs1" || evs[1]["index"] != "other" {
		t.Errorf("index %q, events %v", b.Index, evs)
	}
}

func TestHECRaw(t *testing.T) {
	// Splunk's raw example ("HTTP Event Collector examples"), then lines
	// with what must be escaped, CRLF and blank lines.
	nd, n := HECRaw(nil, []byte("1, 2, 3... Hello, world!\r\n\n  \nsay \"hi\"\\\tend\x01\nlast"), []byte(`"host":"h","sourcetype":"st"`))
	if n != 3 {
		t.Fatalf("%d events:\n%s", n, nd)
	}
	evs, res, _, err := run(t, string(nd), Options{Format: NDJSON})
	if err != nil || res.Failed != 0 {
		t.Fatalf("decode %s: %v %+v", nd, err, res)
	}
	want := []string{"1, 2, 3... Hello, world!", "say \"hi\"\\\tend\x01", "last"}
	for i, e := range evs {
		if e["_raw"] != want[i] || e["host"] != "h" || e["sourcetype"] != "st" {
			t.Errorf("event %d: %v, want _raw %q", i, e, want[i])
		}
	}
	if nd, n := HECRaw(nil, []byte("\n \r\n"), nil); n != 0 || len(nd) != 0 {
		t.Errorf("blank body: %d events %q", n, nd)
	}
}

// BenchmarkHECDecode is the HEC door's decode beside plain NDJSON on the
// same events: "ndjson" decodes the access logs, "hec" decodes the same
// events wrapped as envelopes with DecodeHEC, "general" converts them
// with HECEvents and decodes the result (the path DecodeHEC falls back
// to); "convert" is that conversion alone.
//
//	go test -run '^$' -bench BenchmarkHECDecode -count 6 ./core/ingest/
func BenchmarkHECDecode(b *testing.B) {
	nd := accessLogs(benchEvents, 1)
	var hec []byte
	for _, line := range strings.Split(strings.TrimSpace(string(nd)), "\n") {
		hec = append(append(append(hec, `{"event":`...), line...), "}\n"...)
	}
	b.Run("ndjson", func(b *testing.B) { benchDecode(b, nd, Options{Format: NDJSON}) })
	b.Run("hec", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(nd)))
		for b.Loop() {
			rb := store.NewRowsBuilder()
			if _, res, err := DecodeHEC(hec, Options{Now: testNow}, rb); err != nil || res.Failed != 0 {
				b.Fatal(err, res.Failed)
			}
			rb.Finish(testNow)
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(nd)))
		var buf []byte
		for b.Loop() {
			out, _, err := HECEvents(buf[:0], hec)
			if err != nil {
				b.Fatal(err)
			}
			buf = out
			rb := store.NewRowsBuilder()
			if res, err := Decode(out, Options{Format: NDJSON, Now: testNow}, rb); err != nil || res.Failed != 0 {
				b.Fatal(err, res.Failed)
			}
			rb.Finish(testNow)
		}
	})
	b.Run("convert", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(nd)))
		var buf []byte
		for b.Loop() {
			out, _, err := HECEvents(buf[:0], hec)
			if err != nil {
				b.Fatal(err)
			}
			buf = out
		}
	})
}

// FuzzHECEvents: whatever the body, HECEvents does not panic, and what it
// accepts becomes one valid JSON object per envelope: Decode reads every
// line (an event may still fail on its values, never on its syntax).
func FuzzHECEvents(f *testing.F) {
	for _, s := range []string{
		`{"event":"a"}{"event":{"b":1},"fields":{"c":[1]},"time":1.5,"host":"h"}`,
		"{\"event\":\n{\"x\":\"y\"}\n,\"index\":\"i\"}\n\n{\"event\":[1,{\"z\":null}],\"time\":\"2024-01-02T03:04:05Z\"}",
		`{"event":{},"fields":null,"time":null}`, `{"event":"\u00e9\"\\"}`, `{"fields":{}}`, `[`, `{"event":"a"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		nd, b, err := HECEvents(nil, body)
		if err != nil {
			return
		}
		if got := bytes.Count(nd, []byte{'\n'}); got != b.Events {
			t.Fatalf("%d lines for %d envelopes: %q", got, b.Events, nd)
		}
		res, err := Decode(nd, Options{Format: NDJSON, Now: testNow}, store.NewRowsBuilder())
		if err != nil && b.Events > 0 {
			t.Fatalf("Decode(%q) of %q: %v", nd, body, err)
		}
		if res.Ingested+res.Failed != b.Events {
			t.Fatalf("%d ingested + %d failed of %d envelopes", res.Ingested, res.Failed, b.Events)
		}
		for _, fl := range res.Failures {
			if strings.Contains(fl.Error, "invalid JSON") || strings.Contains(fl.Error, "not a JSON object") {
				t.Fatalf("%q: line refused as JSON: %s", nd, fl.Error)
			}
		}
	})
}
