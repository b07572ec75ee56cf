package ingest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// The fuzz targets check that no input panics and, for JSON, that every
// input encoding/json accepts decodes to exactly the events a reference
// built on encoding/json produces (refEvents below), and every input it
// rejects is rejected. Seeds live in testdata/fuzz/<target>/.

var fuzzJSONSeeds = []string{
	`[{"a":1,"b":{"c":"x","d":[1,2.5,"s",null,true,{"e":{}}]},"f":null}]`,
	`{"_time":"2024-01-02T03:04:05.123Z","m":{"k":1},"_rowID":"r"}`,
	`[{"a":1},{"a":"1"},{"a":1.5},2,"x",[{"a":3}]]`,
	`[{"s":"\u00e9\ud83d\ude00\ud800\n\"\\","k\u0065y":-0,"big":123456789012345678901234,"e":-1.5e-7}]`,
	`[{"a":{"b":1},"a.b":2,"a":{"b":3}}]`,
	"[{\"bad\":\"\xff\xfe\"}]",
	`[{"_time":1704164645},{"_time":"nope"},{"_time":true},{"_time":null}]`,
	`[{"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]`,
	`[{"a":1},]`, `[{"a":}]`, `{"a" 1}`, `[1 2]`, ``, ` `, `[]`, `{}`, `nul`, `"\x"`,
}

func FuzzJSON(f *testing.F) {
	for _, s := range fuzzJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		o := Options{Format: JSON, MaxDepth: 8, MapFields: map[string]bool{"m": true}}
		got, res, _, err := run(t, string(body), o)
		want, failed, rerr := refJSON(body, o)
		if errors.Is(rerr, errRefSkip) {
			return
		}
		if rerr != nil {
			if err == nil {
				t.Fatalf("encoding/json rejects %q (%v), Decode accepts it", body, rerr)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(body)) {
				t.Fatalf("error %v is not a positioned SyntaxError", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Decode rejects %q: %v; encoding/json accepts it", body, err)
		}
		compareEvents(t, body, got, res, want, failed)
	})
}

func FuzzNDJSON(f *testing.F) {
	for _, s := range fuzzJSONSeeds {
		f.Add([]byte(strings.ReplaceAll(strings.Trim(s, "[]"), "},{", "}\n{")))
	}
	f.Add([]byte("{\"a\":1}\n\nnot json\n{\"a\":2} x\n[1]\n{\"b\":\n\r\n{\"_time\":1}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		o := Options{Format: NDJSON, MaxDepth: 8, MapFields: map[string]bool{"m": true}}
		got, res, _, err := run(t, string(body), o)
		if bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) > 9000 {
			return // encoding/json stops at depth 10000; Decode does not
		}
		var want []event
		failed, valid, invalid := 0, false, false
		for _, line := range bytes.Split(body, []byte("\n")) {
			line = bytes.Trim(line, " \t\r")
			switch {
			case len(line) == 0:
			case !json.Valid(line):
				invalid = true
				failed++
			case line[0] == '[':
				valid = true
				failed++ // an array line is one event that is not an object
			default:
				valid = true
				evs, f, rerr := refJSON(line, o)
				if rerr != nil {
					t.Fatalf("reference: %v", rerr)
				}
				want = append(want, evs...)
				failed += f
			}
		}
		if !valid && invalid {
			if err == nil {
				t.Fatalf("no line of %q is JSON, yet Decode accepts it", body)
			}
			return
		}
		if err != nil {
			t.Fatalf("Decode rejects %q: %v", body, err)
		}
		compareEvents(t, body, got, res, want, failed)
	})
}

func compareEvents(t *testing.T, body []byte, got []event, res Result, want []event, failed int) {
	t.Helper()
	if len(want) == 0 {
		want = []event{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("input %q\ngot  %#v\nwant %#v", body, got, want)
	}
	if res.Ingested != len(want) || res.Failed != failed || len(res.Failures) != failed {
		t.Fatalf("input %q: result %+v, want %d ingested, %d failed", body, res, len(want), failed)
	}
}

var errRefSkip = errors.New("outside what the reference models")

// refJSON decodes a JSON stream with encoding/json's tokenizer (keeping
// key order, which a map would lose) and applies the ingest rules to it.
func refJSON(body []byte, o Options) ([]event, int, error) {
	if o.Now == 0 {
		o.Now = testNow // as run does
	}
	o = o.withDefaults()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var events []event
	failed := 0
	for {
		v, err := refValue(dec)
		if err == io.EOF {
			return events, failed, nil
		}
		if err != nil {
			if strings.Contains(err.Error(), "max depth") {
				return nil, 0, errRefSkip
			}
			return nil, 0, err
		}
		elems := []any{v}
		if arr, ok := v.([]any); ok {
			elems = arr
		}
		for _, e := range elems {
			obj, ok := e.(refObj)
			if !ok {
				failed++
				continue
			}
			if ev := refEvent(obj, o); ev != nil {
				events = append(events, ev)
			} else {
				failed++
			}
		}
	}
}

// refObj is a JSON object in document order.
type refObj []refKV

type refKV struct {
	k string
	v any
}

func refValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			arr := []any{}
			for dec.More() {
				v, err := refValue(dec)
				if err != nil {
					return nil, eofIsError(err)
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, eofIsError(err)
		}
		obj := refObj{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, eofIsError(err)
			}
			v, err := refValue(dec)
			if err != nil {
				return nil, eofIsError(err)
			}
			obj = append(obj, refKV{k.(string), v})
		}
		_, err := dec.Token()
		return obj, eofIsError(err)
	case json.Number:
		return vector.JSONNumbers(t), nil
	}
	return tok, nil
}

func eofIsError(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// refEvent flattens one event; nil when the event fails.
func refEvent(obj refObj, o Options) event {
	ev := event{"_time": o.Now}
	ok := true
	var flatten func(prefix string, nested bool, obj refObj, depth int)
	set := func(path string, v any, depth int) {
		name := path
		if reserved[path] || (path == "_time" && o.TimestampField != "_time") {
			name = "_user_" + path
		}
		if path == o.TimestampField {
			switch x := v.(type) {
			case nil:
				return
			case string:
				ns, err := parseTime([]byte(x), o.TimestampFormat)
				ok = ok && err == nil
				ev["_time"] = ns
			case int64:
				ns, good := epochInt(x)
				ok = ok && good
				ev["_time"] = ns
			case float64:
				ns, good := epochFloat(x)
				ok = ok && good
				ev["_time"] = ns
			default:
				ok = false
			}
			if path == "_time" {
				return
			}
		}
		if len(name) > o.MaxFieldNameLen {
			ok = false
		}
		if v == nil {
			delete(ev, name)
			return
		}
		if depth > o.MaxDepth {
			ok = false
		}
		ev[name] = v
	}
	flatten = func(prefix string, nested bool, obj refObj, depth int) {
		for _, kv := range obj {
			path := kv.k
			if nested {
				path = prefix + "." + kv.k
			}
			switch v := kv.v.(type) {
			case refObj:
				if depth+1 > o.MaxDepth {
					ok = false
					continue
				}
				if path == o.TimestampField {
					ok = false
				}
				if o.MapFields[path] {
					set(path, refDynamic(v), depth+maxDepthOf(v))
				} else if len(v) == 0 {
					set(path, map[string]any{}, depth+1)
				} else {
					flatten(path, true, v, depth+1)
				}
			case []any:
				set(path, refDynamic(v), depth+maxDepthOf(v))
			default:
				set(path, v, depth)
			}
		}
	}
	flatten("", false, obj, 1)
	if !ok {
		return nil
	}
	return ev
}

// maxDepthOf is the nesting depth of containers in v (1 for a flat one).
func maxDepthOf(v any) int {
	d := 0
	switch x := v.(type) {
	case refObj:
		for _, kv := range x {
			d = max(d, maxDepthOf(kv.v))
		}
	case []any:
		for _, e := range x {
			d = max(d, maxDepthOf(e))
		}
	default:
		return 0
	}
	return d + 1
}

// refDynamic turns ordered objects into maps (last key wins).
func refDynamic(v any) any {
	switch x := v.(type) {
	case refObj:
		m := map[string]any{}
		for _, kv := range x {
			m[kv.k] = refDynamic(kv.v)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = refDynamic(e)
		}
		return out
	}
	return v
}

func FuzzCSV(f *testing.F) {
	f.Add("a,b,c\n1,x,2.5\n\"q\"\"\",,true\n", "x|y\r\nz|")
	f.Add("a;b\n1;2\n3\n\"open\n", "|||")
	f.Add("\"a\nb\",c\r\n1,2", "\"|,|\n")
	f.Fuzz(func(t *testing.T, body, cells string) {
		// Any body: no panic, rows and failures add up, columns line up.
		for _, delim := range []rune{',', ';', '\t'} {
			_, res, rows, err := run(t, body, Options{Format: CSV, CSVDelimiter: delim})
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %v is not a SyntaxError", err)
				}
				continue
			}
			if res.Ingested != rows.N || res.Failed != len(res.Failures) {
				t.Fatalf("%q: result %+v for %d rows", body, res, rows.N)
			}
		}
		// Cells written by encoding/csv read back as the same values.
		vals := strings.Split(cells, "|")
		for len(vals)%3 != 0 {
			vals = append(vals, "")
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		for i := 0; i < len(vals); i += 3 {
			w.Write(vals[i : i+3])
		}
		w.Flush()
		got, res, _, err := run(t, buf.String(), Options{Format: CSV, CSVFields: []string{"a", "b", "c"}})
		if err != nil {
			t.Fatalf("%q: %v", buf.String(), err)
		}
		var want []event
		for i := 0; i < len(vals); i += 3 {
			e := event{"_time": testNow}
			for j, name := range []string{"a", "b", "c"} {
				if v := refCSVValue(vals[i+j]); v != nil {
					e[name] = v
				}
			}
			want = append(want, e)
		}
		if len(want) == 0 {
			want = []event{}
		}
		if !reflect.DeepEqual(got, want) || res.Failed != 0 {
			t.Fatalf("%q\ngot  %#v\nwant %#v (%+v)", buf.String(), got, want, res)
		}
	})
}

var (
	csvInt   = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	csvFloat = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// refCSVValue is the typing rule of decodeCSV, written independently.
func refCSVValue(s string) any {
	s = strings.ReplaceAll(s, "\r\n", "\n") // as RFC 4180 readers do in quoted cells
	switch s {
	case "":
		return nil
	case "true", "TRUE", "True":
		return true
	case "false", "FALSE", "False":
		return false
	}
	if csvInt.MatchString(s) {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		return s
	}
	if csvFloat.MatchString(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // U+FFFD for each invalid byte
		i += n
	}
	return b.String()
}

// TestRandomBatchesMatchReference runs the FuzzJSON differential over
// seeded random batches: sparse fields, nested objects, type changes,
// repeated keys and failing events, in one batch each, so the builder's
// lazy padding, aborts and handle reuse meet every combination.
func TestRandomBatchesMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	values := []string{`1`, `-2`, `2.5`, `"s"`, `"t"`, `true`, `null`, `[1,{"x":2}]`, `{"n":1}`, `{}`, `{"m":{"k":[]}}`}
	for batch := 0; batch < 200; batch++ {
		var b strings.Builder
		b.WriteByte('[')
		for ev := 0; ev < 1+r.IntN(30); ev++ {
			if ev > 0 {
				b.WriteByte(',')
			}
			if r.IntN(15) == 0 {
				b.WriteString(`7`) // not an object
				continue
			}
			b.WriteByte('{')
			for f := 0; f < r.IntN(8); f++ {
				if f > 0 {
					b.WriteByte(',')
				}
				switch r.IntN(12) {
				case 0:
					b.WriteString(`"_time":"bad"`)
				case 1:
					b.WriteString(`"_time":1704164645`)
				default:
					fmt.Fprintf(&b, `"f%d":%s`, r.IntN(12), values[r.IntN(len(values))])
				}
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
		body := []byte(b.String())
		o := Options{Format: JSON, MapFields: map[string]bool{"f3": true}}
		got, res, _, err := run(t, string(body), o)
		must(t, err)
		want, failed, rerr := refJSON(body, o)
		must(t, rerr)
		compareEvents(t, body, got, res, want, failed)
	}
}
