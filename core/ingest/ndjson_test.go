package ingest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestNDJSON(t *testing.T) {
	in := "{\"a\":1}\n\n  \r\n{\"a\":2,\"b\":{\"c\":\"x\"}}\r\n{\"_time\":1704164645000}\n{\"index\":{\"_index\":\"logs\"}}"
	got, res, _, err := run(t, in, Options{Format: NDJSON})
	must(t, err)
	want := []event{
		{"_time": testNow, "a": int64(1)},
		{"_time": testNow, "a": int64(2), "b.c": "x"},
		{"_time": int64(1704164645) * 1e9},
		{"_time": testNow, "index._index": "logs"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	if res.Ingested != 4 || res.Failed != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestNDJSONBadLines(t *testing.T) {
	in := "{\"a\":1}\nnot json\n[1,2]\n\"s\"\n{\"a\":2} {\"a\":3}\n{\"a\":\n{\"_time\":\"bad\"}\n{\"a\":4}"
	got, res, _, err := run(t, in, Options{Format: NDJSON})
	must(t, err)
	if len(got) != 2 || got[0]["a"] != int64(1) || got[1]["a"] != int64(4) {
		t.Fatalf("events %v", got)
	}
	checkFailures(t, res, 2, []string{
		"line 2: invalid JSON at column 2: invalid character 'o' in literal null",
		"line 3: not a JSON object but an array",
		"line 4: not a JSON object but a string",
		"line 5: invalid JSON at column 9: invalid character '{' after the event (one JSON object per line)",
		"line 6: invalid JSON at column 6",
		"line 7: cannot parse _time",
	})
}

func TestNDJSONGarbageBodyIsAnError(t *testing.T) {
	_, res, _, err := run(t, "\nhello\nworld", Options{Format: NDJSON})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Column != 1 || se.Offset != 1 {
		t.Fatalf("err %v, want a SyntaxError at line 2 column 1", err)
	}
	if res.Ingested != 0 {
		t.Fatalf("%+v", res)
	}
	// Valid JSON that is not an object is not garbage: the lines just fail.
	_, res, _, err = run(t, "1\n2", Options{Format: NDJSON})
	must(t, err)
	checkFailures(t, res, 0, []string{"line 1: not a JSON object", "line 2: not a JSON object"})
}

func TestNDJSONShapeChanges(t *testing.T) {
	// The shape prediction must not confuse fields when events differ.
	in := `{"a":1,"b":{"x":1},"c":1}
{"a":2,"c":2}
{"b":{"y":2},"a":3}
{"c":{"x":4},"b":{"x":5}}
{"a":6,"b":{"x":7},"c":8}`
	got, _, _, err := run(t, in, Options{Format: NDJSON})
	must(t, err)
	want := []event{
		{"_time": testNow, "a": int64(1), "b.x": int64(1), "c": int64(1)},
		{"_time": testNow, "a": int64(2), "c": int64(2)},
		{"_time": testNow, "b.y": int64(2), "a": int64(3)},
		{"_time": testNow, "c.x": int64(4), "b.x": int64(5)},
		{"_time": testNow, "a": int64(6), "b.x": int64(7), "c": int64(8)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

// The predicted key is compared a word at a time: a key that is a prefix
// of the one in the input, or the other way round, around the word's
// eight bytes and at the very end of the input, is another key.
func TestNDJSONPredictedKeyPrefixes(t *testing.T) {
	keys := []string{"a", "ab", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh_long_key", "abcdefgh_long_kez", "é"}
	var in strings.Builder
	var want []event
	for i, k := range keys {
		for j, k2 := range keys {
			fmt.Fprintf(&in, "{%q:%d,%q:%d}\n", k, i, k2, j)
			e := event{"_time": testNow, k: int64(i)}
			e[k2] = int64(j)
			want = append(want, e)
		}
	}
	for _, k := range keys { // the key as the last bytes of the body
		fmt.Fprintf(&in, "{%q:1,%q:2}", keys[0], k)
		got, res, _, err := run(t, in.String(), Options{Format: NDJSON})
		must(t, err)
		e := event{"_time": testNow, keys[0]: int64(1)}
		e[k] = int64(2)
		if res.Failed != 0 || !reflect.DeepEqual(got, append(want, e)) {
			t.Fatalf("%+v\ngot  %v\nwant %v", res, got, append(want, e))
		}
		fmt.Fprintf(&in, "\n")
		want = append(want, e)
	}
}
