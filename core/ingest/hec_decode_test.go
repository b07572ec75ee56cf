package ingest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/store"
)

// hecBoth decodes body with DecodeHEC and with the general path
// (HECEvents, then Decode) and fails unless they store the same rows and
// answer the same: batch, counts, failures, error.
func hecBoth(t testing.TB, body []byte, o Options) {
	t.Helper()
	if o.Now == 0 {
		o.Now = testNow
	}
	fb, gb := store.NewRowsBuilder(), store.NewRowsBuilder()
	fBatch, fRes, fErr := DecodeHEC(body, o, fb)
	gBatch, gRes, gErr := decodeHECGeneral(body, o.withDefaults(), gb)
	if !sameHECErr(fErr, gErr) {
		t.Fatalf("%q: error %v, the general path's %v", body, fErr, gErr)
	}
	if fBatch != gBatch {
		t.Fatalf("%q: batch %+v, the general path's %+v", body, fBatch, gBatch)
	}
	if !reflect.DeepEqual(fRes, gRes) {
		t.Fatalf("%q: result %+v\nthe general path's %+v", body, fRes, gRes)
	}
	if fErr != nil {
		return
	}
	if msg := diffRows(fb.Finish(o.Now), gb.Finish(o.Now)); msg != "" {
		t.Fatalf("%q: %s", body, msg)
	}
}

func sameHECErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ha, hb *HECError
	if errors.As(a, &ha) && errors.As(b, &hb) {
		return *ha == *hb
	}
	return a.Error() == b.Error()
}

// diffRows says how two batches differ, "" when they hold the same
// columns in the same order and the same values and times in each row.
func diffRows(got, want *store.Rows) string {
	if got.N != want.N || !reflect.DeepEqual(got.Keys, want.Keys) {
		return fmt.Sprintf("%d rows of %v, want %d rows of %v", got.N, got.Keys, want.N, want.Keys)
	}
	if !reflect.DeepEqual(got.Time, want.Time) {
		return fmt.Sprintf("times %v, want %v", got.Time, want.Time)
	}
	for c, k := range got.Keys {
		g, w := got.Cols[c], want.Cols[c]
		for i := range got.N {
			if g.IsNull(i) != w.IsNull(i) || !g.IsNull(i) && !reflect.DeepEqual(g.Value(i), w.Value(i)) {
				return fmt.Sprintf("row %d, %s %v: %#v, want %#v", i, k.Name, k.Type, g.Value(i), w.Value(i))
			}
		}
	}
	return ""
}

// hecDirect reports whether the direct read takes body whole, without
// the general path.
func hecDirect(body []byte, o Options) bool {
	o = o.withDefaults()
	d := decoders.Get().(*decoder)
	defer d.release()
	d.init(&o, store.NewRowsBuilder(), len(body))
	_, ok := d.hecDecode(body)
	return ok
}

// The direct read stores what the general path stores, over envelopes
// senders send and hostile ones; the ones marked direct it must take
// itself (a direct read that gave every body up would match trivially).
func TestDecodeHECMatchesGeneral(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)
	deepArr := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	var many strings.Builder
	for i := range 100 {
		fmt.Fprintf(&many, `{"time":%d,"host":"h%d","event":{"i":%d,"msg":"m%d","opt%d":true},"fields":{"k":%d}}`+"\n", 1704164645+i, i%3, i, i%7, i%2, i)
	}
	for _, tc := range []struct {
		body   string
		direct bool
		o      Options
	}{
		// Splunk's examples (hec_test.go), whitespace and all.
		{body: "{\n    \"time\": 1426279439,\n    \"host\": \"localhost\",\n    \"source\": \"random-data-generator\",\n    \"sourcetype\": \"my_sample_data\",\n    \"index\": \"main\",\n    \"event\": \"Hello world!\"\n}", direct: true},
		{body: `{"time": 1437522387, "host": "dataserver992.example.com", "source": "testapp", "event": { "message": "Something happened", "severity": "INFO" }, "fields": {"region": "us-west-1", "datacenter": "us-west-1a", "rack": "63"}}`, direct: true},
		{body: `{"event": "Pony 1 has left the barn"}{"event": "Pony 2 has left the barn"}{"event": "Pony 3 has left the barn", "nested": {"key1": "value1"}}`, direct: true},
		// The OpenTelemetry exporter's order: metadata, event, fields.
		{body: `{"time":1704164645.123,"host":"h","source":"otel","sourcetype":"_json","index":"logs","event":{"body":"x","severity":9},"fields":{"service.name":"api","k8s":{"pod":"p"}}}`, direct: true},
		{body: many.String(), direct: true},
		// time: seconds, fraction, ms, strings, null, and what fails.
		{body: `{"time":1704164645,"event":{"a":1}}{"time":"1704164645.125","event":{"a":2}}{"time":1704164645123,"event":{"a":3}}`, direct: true},
		{body: `{"time":"2024-01-02T05:04:05+02:00","event":{"a":1}}{"time":null,"event":{"a":2}}`, direct: true},
		{body: `{"event":"ok"}{"time":"yesterday","event":"bad"}{"time":true,"event":"b"}{"time":{"x":1},"event":"c"}{"time":[1],"event":"d"}{"time":1e400,"event":"e"}{"time":-1e300,"event":"f"}`, direct: true},
		{body: `{"time":1704164645,"event":{"_time":1,"a":1}}{"event":{"_time":"bad"},"time":5}{"event":{"_time":1704164645}}`, direct: true},
		// event: every kind of value, and the blank ones HEC refuses.
		{body: `{"event":42} {"event":["x",{"y":1}]} {"event":{}} {"event":"a\nb \"q\""} {"event":true} {"event":false} {"event":-1.5e3}`, direct: true},
		{body: `{"event":null}`},
		{body: `{"event":""}`},
		{body: `{"event":"a"}{"event":nul}`},
		{body: `{"event":"a"}{"time":1}`},
		{body: `{}`},
		// Repeated keys, in the envelope, the event and the fields.
		{body: `{"event":"a","event":"b"}`},
		{body: `{"event":{"a":1},"fields":{"b":2},"fields":{"c":3}}`},
		{body: `{"time":1,"time":1704164645,"host":"a","host":"b","index":"x","index":"y","event":{"host":"e","a":1,"a":"s"}}`, direct: true},
		{body: `{"host":"envelope","fields":{"host":"fields","f":["a","b"]},"event":{"host":"event","n":1.5,"geo":{"city":"x"},"geo.city":"y"}}`, direct: true},
		{body: `{"event":{"a":1,"b":{"c":2}},"fields":{"a":"x","b.c":"y","b":{"c":null}},"a":true}`, direct: true},
		{body: `{"fields":null,"event":"x"}{"event":"y","fields":null}`, direct: true},
		{body: `{"event":"a","_raw":"b"}{"_raw":"c","event":{"_raw":"d"}}`, direct: true},
		{body: `{"event":"a","index":5}`},
		{body: `{"event":"a","index":5,"index":"ok"}`},
		{body: `{"event":"a","fields":"x"}`},
		{body: `{"event":"a","fields":[1]}`},
		{body: `{"fields":7,"event":"a"}`},
		// Deep nesting and huge numbers.
		{body: `{"event":` + deep + `}{"event":{"ok":1}}`, direct: true},
		{body: `{"event":` + deepArr + `}{"fields":` + deep + `,"event":"x"}{"event":"y","extra":` + deep + `}`, direct: true},
		{body: `{"event":{"n":123456789012345678901234567890,"f":1e400,"m":-0,"e":1E-400,"i":9223372036854775807,"j":-9223372036854775808,"k":9223372036854775808}}`, direct: true},
		{body: `{"event":12345678901234567890123,"time":99999999999999999999999}`, direct: true},
		// Strings: bad UTF-8 raw and escaped, escapes in keys.
		{body: "{\"event\":{\"k\xff\":\"v\xfe\xfd\",\"s\":\"\\ud800x\"},\"h\xc3\":\"\xc3\"}", direct: true},
		{body: `{"\u0065vent":{"a":1},"ti\u006de":1704164645,"ind\u0065x":"i\u0031"}`, direct: true},
		{body: "{\"event\":\"tab\there\"}"},
		// Truncated and broken bodies.
		{body: `{"event":{"a":1`},
		{body: `{"event":"a"`},
		{body: `{"event":"a"}{`},
		{body: `{"event":"a"}{"event":"b",}`},
		{body: `{"event":"a" "x":1}`},
		{body: `{"event":{"a":1 "b":2}}`},
		{body: `{"event":{"a":01}}`},
		{body: `{"event":"a","host":"h`},
		{body: `[{"event":"a"}]`},
		{body: `hello`},
		{body: "\xef\xbb\xbf{\"event\":\"a\"}"},
		{body: `{"event":"a"} x`},
		// Whitespace of every kind between tokens, blank lines.
		{body: "\r\n\t{ \"event\" :\r\n{ \"a\" :\t1 ,\n\"b\" : [ 1 , 2 ] } ,\n \"time\" : 1704164645 }\r\n\r\n", direct: true},
		{body: "  \n "},
		// Limits: the field count, name length, depth; map fields; labels.
		{body: `{"event":{"a":1,"b":2},"fields":{"c":3}}{"event":{"d":4}}{"event":{"a":5}}`, direct: true, o: Options{MaxFields: 3}},
		{body: `{"event":{"abcdef":1}}{"event":{"abc":1},"longname":2}`, direct: true, o: Options{MaxFieldNameLen: 5}},
		{body: `{"event":{"a":{"b":{"c":1}}}}{"event":"x","fields":{"a":{"b":{"c":{"d":1}}}}}`, direct: true, o: Options{MaxDepth: 3}},
		{body: `{"event":{"geo":{"city":"x"}},"fields":{"geo":{"c":1}}}`, direct: true, o: Options{MapFields: map[string]bool{"geo": true}}},
		{body: `{"event":{"a":1,"env":"e"}}{"event":"x"}`, direct: true, o: Options{Labels: map[string]any{"env": "prod", "l": 1}}},
		{body: `{"event":{"ts":"2024-01-02T03:04:05Z","a":1},"time":5}`, direct: true, o: Options{TimestampField: "ts"}},
		{body: `{"event":{"_sysTime":1,"_rowID":2,"_time":3}}`, direct: true},
	} {
		hecBoth(t, []byte(tc.body), tc.o)
		if tc.direct && !hecDirect([]byte(tc.body), tc.o) {
			t.Errorf("%.80q: left to the general path", tc.body)
		}
	}
}

// FuzzDecodeHEC: whatever the body, the direct read and the general path
// store the same rows and answer the same.
func FuzzDecodeHEC(f *testing.F) {
	for _, s := range []string{
		`{"event":"a"}{"event":{"b":1},"fields":{"c":[1]},"time":1.5,"host":"h"}`,
		"{\"time\":\"2024-01-02T03:04:05Z\",\n\"event\":\n{\"x\":\"y\"}\n,\"index\":\"i\"}\n\n{\"event\":[1,{\"z\":null}]}",
		`{"fields":{"a":1},"event":{"a":2},"fields":null}`, `{"event":{"_time":"x"},"time":1}`, `{"event":"\u00e9\"\\"}`,
		`{"event":{},"time":null}{"event":7,"index":3}`, `{"event":{"a":{"b":[{"c":1e999}]}},"a.b":"x"}`, `{"event":"a"} {`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		hecBoth(t, body, Options{})
		hecBoth(t, body, Options{MaxFields: 4, MaxDepth: 3})
	})
}

// HECFirstIndex finds the index HECEvents reports, from the first
// envelope alone, and gives up on a first envelope HEC refuses.
func TestHECFirstIndex(t *testing.T) {
	for _, tc := range []struct {
		body, want string
		ok         bool
	}{
		{`{"event":"a","index":"logs\u0031"}{"event":"b","index":"other"}`, "logs1", true},
		{` {"index":"x","event":{"a":1},"index":"y"}`, "y", true},
		{`{"event":"a"}{"event":"b","index":"x"}`, "", true},
		{`{"event":"a","index":"x"}{"broken`, "x", true}, // the rest is the decode's
		{`{"event":"a","index":5}`, "", false},
		{`{"event":"","index":"x"}`, "", false},
		{`{"index":"x"}`, "", false},
		{`{"event":"a","index":"x"`, "", false},
		{`[{"event":"a"}]`, "", false},
		{"  ", "", false},
	} {
		got, ok := HECFirstIndex([]byte(tc.body))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.body, got, ok, tc.want, tc.ok)
		}
		if _, b, err := HECEvents(nil, []byte(tc.body)); tc.ok && err == nil && b.Index != got {
			t.Errorf("%s: %q, HECEvents says %q", tc.body, got, b.Index)
		}
	}
}
