package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

func TestJSONEvents(t *testing.T) {
	ts := func(s string) int64 { ns, err := parseTime([]byte(s), ""); must(t, err); return ns }
	cases := []struct {
		name string
		in   string
		o    Options
		want []event
	}{
		{"flatten", `[{"a":1,"geo":{"city":"Berlin","pos":{"lat":52.5}}}]`, Options{},
			[]event{{"_time": testNow, "a": int64(1), "geo.city": "Berlin", "geo.pos.lat": 52.5}}},
		{"types", `[{"i":-7,"f":1.0,"e":1e3,"big":123456789012345678901,"s":"x","t":true,"n":null,"arr":[1,"a",null,{"k":[]}]}]`, Options{},
			[]event{{"_time": testNow, "i": int64(-7), "f": 1.0, "e": 1000.0, "big": 123456789012345678901.0, "s": "x", "t": true,
				"arr": []any{int64(1), "a", nil, map[string]any{"k": []any{}}}}}},
		{"int64 bounds", `[{"max":9223372036854775807,"min":-9223372036854775808,"over":9223372036854775808}]`, Options{},
			[]event{{"_time": testNow, "max": int64(9223372036854775807), "min": int64(-9223372036854775808), "over": 9223372036854775808.0}}},
		{"map field", `[{"m":{"a":{"b":1}},"n":{"a":1}}]`, Options{MapFields: map[string]bool{"m": true}},
			[]event{{"_time": testNow, "m": map[string]any{"a": map[string]any{"b": int64(1)}}, "n.a": int64(1)}}},
		{"dotted map field", `[{"k":{"m":{"a":1}}}]`, Options{MapFields: map[string]bool{"k.m": true}},
			[]event{{"_time": testNow, "k.m": map[string]any{"a": int64(1)}}}},
		{"map field scalar", `[{"m":"plain"}]`, Options{MapFields: map[string]bool{"m": true}},
			[]event{{"_time": testNow, "m": "plain"}}},
		{"empty object kept", `[{"o":{}}]`, Options{},
			[]event{{"_time": testNow, "o": map[string]any{}}}},
		{"escapes", `[{"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00\ud800x","k\u0065y":1}]`, Options{},
			[]event{{"_time": testNow, "s": "a\"b\\c/d\né😀\ufffdx", "key": int64(1)}}},
		{"invalid utf8 replaced", "[{\"s\":\"a\xffb\"}]", Options{},
			[]event{{"_time": testNow, "s": "a\ufffdb"}}},
		{"duplicate key last wins", `[{"a":1,"a":"x"}]`, Options{},
			[]event{{"_time": testNow, "a": "x"}}},
		{"flattened collision last wins", `[{"a":{"b":1},"a.b":2}]`, Options{},
			[]event{{"_time": testNow, "a.b": int64(2)}}},
		{"mixed types across events", `[{"v":1},{"v":"1"},{"v":1.5},{"v":true},{"v":[1]}]`, Options{},
			[]event{{"_time": testNow, "v": int64(1)}, {"_time": testNow, "v": "1"}, {"_time": testNow, "v": 1.5},
				{"_time": testNow, "v": true}, {"_time": testNow, "v": []any{int64(1)}}}},
		{"single object", `{"a":1}`, Options{}, []event{{"_time": testNow, "a": int64(1)}}},
		{"stream of arrays and objects", "[{\"a\":1}]\n{\"a\":2}\n[{\"a\":3}]", Options{},
			[]event{{"_time": testNow, "a": int64(1)}, {"_time": testNow, "a": int64(2)}, {"_time": testNow, "a": int64(3)}}},
		{"reserved names", `[{"_rowID":1,"_rowId":2,"_sysTime":3,"_cursor":4,"_source":5,"_blockInfo":6,"x":{"_sysTime":7}}]`, Options{},
			[]event{{"_time": testNow, "_user__rowID": int64(1), "_user__rowId": int64(2), "_user__sysTime": int64(3),
				"_user__cursor": int64(4), "_user__source": int64(5), "_user__blockInfo": int64(6), "x._sysTime": int64(7)}}},
		{"time consumed", `[{"_time":"2024-01-02T03:04:05Z","a":1}]`, Options{},
			[]event{{"_time": ts("2024-01-02T03:04:05Z"), "a": int64(1)}}},
		{"null time is ingest time", `[{"_time":null}]`, Options{}, []event{{"_time": testNow}}},
		{"custom time field kept", `[{"ts":1704164645,"_time":"x"}]`, Options{TimestampField: "ts"},
			[]event{{"_time": ts("2024-01-02T03:04:05Z"), "ts": int64(1704164645), "_user__time": "x"}}},
		{"nested time field", `[{"ev":{"at":"2024-01-02T03:04:05+01:00"}}]`, Options{TimestampField: "ev.at"},
			[]event{{"_time": ts("2024-01-02T02:04:05Z"), "ev.at": "2024-01-02T03:04:05+01:00"}}},
		{"time layout", `[{"_time":"02/Jan/2024:03:04:05 +0000"}]`, Options{TimestampFormat: "02/Jan/2006:15:04:05 -0700"},
			[]event{{"_time": ts("2024-01-02T03:04:05Z")}}},
		{"labels", `[{"a":1,"region":"event wins"},{"a":2}]`, Options{Labels: map[string]any{"region": "eu", "n": 1, "o": map[string]any{"k": true}}},
			[]event{{"_time": testNow, "a": int64(1), "region": "event wins", "n": int64(1), "o.k": true},
				{"_time": testNow, "a": int64(2), "region": "eu", "n": int64(1), "o.k": true}}},
		{"label changes type under event", `[{"n":"s"}]`, Options{Labels: map[string]any{"n": 1.5}},
			[]event{{"_time": testNow, "n": "s"}}},
		{"whitespace everywhere", " \n[ { \"a\" : 1 , \"b\" : [ 1 , 2 ] } , { } ] \n", Options{},
			[]event{{"_time": testNow, "a": int64(1), "b": []any{int64(1), int64(2)}}, {"_time": testNow}}},
		{"empty", ``, Options{}, []event{}},
		{"empty array", `[]`, Options{}, []event{}},
		{"bom", "\xef\xbb\xbf[{\"a\":1}]", Options{}, []event{{"_time": testNow, "a": int64(1)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, res, _, err := run(t, c.in, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %#v\nwant %#v", got, c.want)
			}
			if res.Ingested != len(c.want) || res.Failed != 0 {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

func TestMixedTypesKeepOneColumnPerType(t *testing.T) {
	_, _, rows, err := run(t, `[{"v":1},{"v":"1"},{"v":2}]`, Options{})
	must(t, err)
	got := columnTypes(rows)["v"]
	if !reflect.DeepEqual(got, []vector.Type{vector.Int, vector.String}) {
		t.Fatalf("columns for v: %v", got)
	}
}

func TestJSONFailures(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		o        Options
		ingested int
		errs     []string // substrings, one per failure
	}{
		{"non-objects", `[1,"s",[{"a":1}],null,true,{"a":1}]`, Options{}, 1,
			[]string{"event 1: not a JSON object but a number", "event 2: not a JSON object but a string",
				"event 3: not a JSON object but an array", "event 4: not a JSON object but null", "event 5: not a JSON object but a boolean"}},
		{"bad time", `[{"_time":"yesterday","a":1},{"a":2}]`, Options{}, 1,
			[]string{`event 1: cannot parse _time value "yesterday" as a time`}},
		{"time out of range", `[{"_time":"3000-01-01T00:00:00Z"},{"_time":99999999999999999999}]`, Options{}, 0,
			[]string{"event 1: cannot parse _time", "event 2: cannot use _time value 1e+20 as a time: out of range"}},
		{"time wrong type", `[{"_time":true},{"_time":[1]},{"_time":{"a":1}}]`, Options{}, 0,
			[]string{"event 1: cannot use _time value true", "event 2: cannot use _time value of type array", "event 3: cannot use _time value of type object"}},
		{"time not matching layout", `[{"_time":"2024-01-02T03:04:05Z"}]`, Options{TimestampFormat: "02/Jan/2006"}, 0,
			[]string{`does not match the timestamp format "02/Jan/2006"`}},
		{"field name too long", `[{"` + strings.Repeat("k", 201) + `":1},{"ok":1}]`, Options{}, 1,
			[]string{"event 1: field name \"kkkk", "is 201 bytes long, over the limit of 200"}},
		{"flattened name too long", `[{"a":{"b":1}}]`, Options{MaxFieldNameLen: 2}, 0,
			[]string{`field name "a.b" is 3 bytes long, over the limit of 2`}},
		{"too many fields", `[{"a":1,"b":2},{"a":3,"c":4},{"b":5}]`, Options{MaxFields: 2}, 2,
			[]string{`event 2: field "c" would exceed the limit of 2 distinct fields`}},
		{"too deep", `[{"a":{"b":{"c":1}}},{"a":[[1]]},{"a":{"b":2}}]`, Options{MaxDepth: 2}, 1,
			[]string{"event 1: field a.b nests deeper than the limit of 2 levels", "event 2: a value nests deeper than the limit of 2 levels"}},
		{"deep map field", `[{"m":{"a":{"b":1}}}]`, Options{MaxDepth: 2, MapFields: map[string]bool{"m": true}}, 0,
			[]string{"event 1: a value nests deeper"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, res, _, err := run(t, c.in, c.o)
			must(t, err)
			checkFailures(t, res, c.ingested, c.errs)
		})
	}
}

// checkFailures compares a result with the expected count of ingested
// events and the failure messages (each failure contains errs[i]; a
// message list longer than the failures checks extra substrings of the
// last one).
func checkFailures(t *testing.T, res Result, ingested int, errs []string) {
	t.Helper()
	if res.Ingested != ingested {
		t.Errorf("ingested %d, want %d (%+v)", res.Ingested, ingested, res)
	}
	if res.Failed != len(res.Failures) {
		t.Errorf("failed %d but %d failures listed", res.Failed, len(res.Failures))
	}
	for i, want := range errs {
		j := min(i, len(res.Failures)-1)
		if j < 0 || !strings.Contains(res.Failures[j].Error, want) {
			t.Errorf("failure %d: want it to contain %q; failures: %+v", i, want, res.Failures)
		}
	}
	for _, f := range res.Failures {
		if f.Timestamp.UnixNano() != testNow || f.Timestamp.Location().String() != "UTC" {
			t.Errorf("failure timestamp %v, want the ingest time in UTC", f.Timestamp)
		}
	}
}

func TestFailedEventLeavesNoColumns(t *testing.T) {
	_, res, rows, err := run(t, `[{"a":1},{"a":"x","new":1,"_time":"bad"},{"a":2}]`, Options{})
	must(t, err)
	if res.Ingested != 2 || res.Failed != 1 {
		t.Fatalf("%+v", res)
	}
	if got := columnTypes(rows); !reflect.DeepEqual(got, map[string][]vector.Type{"a": {vector.Int}}) {
		t.Fatalf("columns %v, want only a:long", got)
	}
}

func TestJSONSyntaxErrors(t *testing.T) {
	cases := []struct {
		in                string
		line, col, offset int
		msg               string
	}{
		{`not json`, 1, 2, 1, "invalid character 'o' in literal null"},
		{"[{\"a\":1},\n {\"b\":}]", 2, 7, 16, "invalid character '}' looking for beginning of value"},
		{`[{"a":1}`, 1, 9, 8, "end of input"},
		{`[{"a":1},]`, 1, 10, 9, "invalid character ']'"},
		{`[{"a" 1}]`, 1, 7, 6, "after object key"},
		{`[{"a":"x`, 1, 7, 6, "unterminated string"},
		{"[{\"a\":\"x\ty\"}]", 1, 9, 8, "invalid control character"},
		{`[{"a":"\x"}]`, 1, 8, 7, "invalid escape"},
		{`[{"a":tru}]`, 1, 10, 9, "in literal true"},
		{`[{"a":-}]`, 1, 8, 7, "invalid character '}' looking for beginning of value"},
		{`[{"a":1.}]`, 1, 9, 8, "after decimal point"},
		{`[{"a":01}]`, 1, 8, 7, "invalid character '1' after object key:value pair"},
		{`[1 2]`, 1, 4, 3, "after array element"},
		{`[[[1]]`, 1, 7, 6, "end of input"},
	}
	for _, c := range cases {
		_, _, _, err := run(t, c.in, Options{})
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a SyntaxError", c.in, err)
			continue
		}
		if se.Line != c.line || se.Column != c.col || se.Offset != int64(c.offset) || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: got %v (line %d col %d off %d), want line %d col %d off %d containing %q",
				c.in, se, se.Line, se.Column, se.Offset, c.line, c.col, c.offset, c.msg)
		}
	}
}

func TestProcessedBytes(t *testing.T) {
	body := `[{"a":1}]`
	_, res, _, err := run(t, body, Options{LabelsHeaderLen: 22})
	must(t, err)
	if res.ProcessedBytes != int64(len(body)+22) {
		t.Fatalf("processed %d", res.ProcessedBytes)
	}
}

func TestMaxFailuresCapsList(t *testing.T) {
	_, res, _, err := run(t, `[1,2,3,4,5]`, Options{MaxFailures: 2})
	must(t, err)
	if res.Failed != 5 || len(res.Failures) != 2 {
		t.Fatalf("%+v", res)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestZeroNowIsTheCurrentTime(t *testing.T) {
	before := time.Now().UnixNano()
	b := store.NewRowsBuilder()
	res, err := Decode([]byte(`[{"a":1},2]`), Options{}, b)
	must(t, err)
	after := time.Now().UnixNano()
	rows := b.Finish(0)
	if got := rows.Time[0]; got < before || got > after {
		t.Fatalf("_time %d not between %d and %d", got, before, after)
	}
	if ts := res.Failures[0].Timestamp.UnixNano(); ts != rows.Time[0] {
		t.Fatalf("failure timestamp %d, event time %d: both should be the one ingest time", ts, rows.Time[0])
	}
}

func TestResultJSON(t *testing.T) {
	_, res, _, err := run(t, `[{"a":1}]`, Options{})
	must(t, err)
	out, _ := json.Marshal(res)
	if string(out) != `{"ingested":1,"failed":0,"failures":[],"processedBytes":9}` {
		t.Fatalf("%s", out)
	}
	_, res, _, _ = run(t, `[1]`, Options{})
	out, _ = json.Marshal(res.Failures)
	if string(out) != `[{"timestamp":"2024-05-06T07:08:09Z","error":"event 1: not a JSON object but a number"}]` {
		t.Fatalf("%s", out)
	}
}

// A column dropped with a failed event must not leave a stale handle: the
// next event that uses the name gets a column of its own again.
func TestHandlesAfterAbort(t *testing.T) {
	in := `[{"a":1},{"new":"x","_time":"bad"},{"other":2},{"new":3,"a":4},{"new":"y"}]`
	got, res, rows, err := run(t, in, Options{})
	must(t, err)
	want := []event{
		{"_time": testNow, "a": int64(1)},
		{"_time": testNow, "other": int64(2)},
		{"_time": testNow, "new": int64(3), "a": int64(4)},
		{"_time": testNow, "new": "y"},
	}
	if !reflect.DeepEqual(got, want) || res.Failed != 1 {
		t.Fatalf("got %#v (%+v)", got, res)
	}
	if types := columnTypes(rows); !reflect.DeepEqual(types["new"], []vector.Type{vector.Int, vector.String}) {
		t.Fatalf("columns %v", types)
	}
}

// Endless distinct keys fail event by event and do not grow the field
// table without bound.
func TestDistinctKeysAreBounded(t *testing.T) {
	var body strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&body, "{\"k%d\":{\"x\":1},\"ok\":1}\n", i)
	}
	o := Options{Format: NDJSON, MaxFields: 3, Now: testNow}.withDefaults()
	d := new(decoder)
	b := store.NewRowsBuilder()
	d.init(&o, b, body.Len())
	must(t, d.setLabels(nil))
	must(t, d.decodeNDJSON([]byte(body.String())))
	if d.ingested != 2 || d.failed != 1998 {
		t.Fatalf("ingested %d failed %d", d.ingested, d.failed)
	}
	if n := len(d.f.nodes); n > d.f.maxNodes()+1 {
		t.Fatalf("%d nodes for a limit of %d", n, d.f.maxNodes())
	}
	if msg := d.failures[len(d.failures)-1].Error; !strings.Contains(msg, "too many distinct field names") {
		t.Fatalf("last failure %q", msg)
	}
}
