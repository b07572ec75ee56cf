package ingest

import (
	"bytes"
	"hash/fnv"
	"reflect"
	"strings"
	"testing"
)

// keepPaths is a Keep that accepts the given paths and their parents, as
// the query planner's Keep does.
func keepPaths(paths ...string) func(string) bool {
	m := map[string]bool{}
	for _, p := range paths {
		for {
			m[p] = true
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return func(p string) bool { return m[p] }
}

// pathOf undoes the renaming of reserved names, so a column can be
// matched against Keep, which sees paths.
func pathOf(name string) string {
	if rest, ok := strings.CutPrefix(name, "_user_"); ok && (reserved[rest] || rest == "_time") {
		return rest
	}
	return name
}

// restrict drops from each event the fields keep rejects.
func restrict(evs []event, keep func(string) bool) []event {
	out := make([]event, len(evs))
	for i, e := range evs {
		r := event{}
		for k, v := range e {
			if k == "_time" || keep(pathOf(k)) {
				r[k] = v
			}
		}
		out[i] = r
	}
	return out
}

// checkKeepMatchesFull decodes body in full and with keep and requires
// the same outcome: the same error, the same counts and failures, and the
// full rows restricted to the kept fields.
func checkKeepMatchesFull(t *testing.T, body string, keep func(string) bool) {
	t.Helper()
	full, fres, _, ferr := run(t, body, Options{Format: NDJSON})
	got, gres, rows, gerr := run(t, body, Options{Format: NDJSON, Keep: keep})
	if (ferr == nil) != (gerr == nil) || ferr != nil && ferr.Error() != gerr.Error() {
		t.Fatalf("error with Keep %v, in full %v", gerr, ferr)
	}
	if !reflect.DeepEqual(gres, fres) {
		t.Fatalf("result with Keep %+v\nin full %+v", gres, fres)
	}
	if ferr != nil {
		return
	}
	for _, k := range rows.Keys {
		if !keep(pathOf(k.Name)) {
			t.Errorf("column %s is stored, Keep rejects it", k.Name)
		}
	}
	want := restrict(full, keep)
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("event %d with Keep:\n%v\nfull decode restricted:\n%v", i, got[i], want[i])
		}
	}
}

// Projection must not change a single value: on the benchmark's realistic
// events (nested objects, arrays, a field that changes type, unicode,
// sparse fields) and on hand-written edge cases, the kept columns are the
// full decode's.
func TestKeepMatchesFullDecode(t *testing.T) {
	body := string(realBody(3000)) + strings.Join([]string{
		`{"_time":1714979289,"uri":"/a\"b\\c\u00e9\ud83d\ude00","status":"500","geo":{"city":"\u004fslo"},"tags":["x",{"y":[1,2.5e3,-0,null]}]}`,
		`{"uri":"caf` + "\xff" + `","geo":{},"cache":{"status":"MISS","age_s":-1.5E-3},"message":"tab\there"}`,
		`  {"status":200,"status":201.5,"uri":null,"geo":{"city":"Rome","city":"Roma"}}  `,
		`{"message":"` + strings.Repeat("long text ", 200) + `","uri":"/x"}`,
		`{"_rowID":"r","_time":"2024-05-06T07:08:09.123456789+02:00","id":12345678901234567890}`,
		`{"cache":{"k\"ey":{"a\u00e9":[1, -2.5e-3 ,{"x" : "y"}]} , "st\\atus" :"HIT"},"tags":[ "a\nb" , 0, 1E+2, true,false,null,[],{}],"uri":"/u"}`,
		`[1,2]`,
		`"just a string"`,
		`{}`,
	}, "\n") + "\n"
	for _, fields := range [][]string{
		{"status"}, {"uri"}, {"geo.city"}, {"cache.status"}, {"tags"},
		{"message", "user_agent"}, {"_rowID", "id", "req_duration_ms"}, {"geo"},
		{"status", "uri", "method", "server_datacenter", "req_duration_ms", "geo.country"},
	} {
		t.Run(strings.Join(fields, ","), func(t *testing.T) {
			checkKeepMatchesFull(t, body, keepPaths(fields...))
		})
	}
}

// A broken line fails the same way, at the same column, whether the break
// is in a field Keep skips or in one it keeps, and is counted once.
func TestKeepMalformedLinesFailAsInFull(t *testing.T) {
	good := `{"status":200,"uri":"/ok"}`
	for _, bad := range []string{
		`{"status":200,"msg":"bad \x escape"}`,
		`{"status":200,"msg":"bad \u12g4 escape"}`,
		"{\"status\":200,\"msg\":\"control \x01 byte\"}",
		`{"status":200,"msg":"unterminated}`,
		`{"status":200,"msg":"ends in a backslash\`,
		`{"status":200,"n":1.e5}`,
		`{"status":200,"n":-}`,
		`{"status":200,"n":01}`,
		`{"status":200,"n":1e+}`,
		`{"status":200,"n":.5}`,
		`{"status":200,"b":tru}`,
		`{"status":200,"b":nul}`,
		`{"status":200,"o":{"a":1,}}`,
		`{"status":200,"o":{"a" 1}}`,
		`{"status":200,"o":{1:2}}`,
		`{"status":200,"a":[1,2}`,
		`{"status":200,"a":[1 2]}`,
		`{"status":200,"a":[{"x":"y\q"}]}`,
		`{"status":200,"o":{"a\q":1}}`,
		`{"status":200,"o":{"a":1 , "b" :2,"c":-01}}`,
		`{"status":200,"o":{"a":[1,2.]}}`,
		`{"status":200,"o":{"a" :: 1}}`,
		"{\"status\":200,\"o\":{\"a\x01\":1}}",
		`{"status":200,"x":1} trailing`,
		`{"status":200,"x":1`,
		`{"status":2x0}`,
		`{"uri":"/a\q"}`,
	} {
		body := good + "\n" + bad + "\n" + good + "\n"
		for _, keep := range []func(string) bool{keepPaths("status"), keepPaths("uri"), keepPaths("o.a", "a")} {
			checkKeepMatchesFull(t, body, keep)
			_, res, _, err := run(t, body, Options{Format: NDJSON, Keep: keep})
			if err != nil || res.Failed != 1 || res.Ingested != 2 || !strings.Contains(res.Failures[0].Error, "line 2: invalid JSON at column") {
				t.Errorf("%s: %+v %v, want line 2 counted as failed", bad, res, err)
			}
		}
	}
}

// FuzzKeepNDJSON decodes any body in full and projected on a keep set the
// fuzzer picks (a hash of the top-level key against sel, so parents are
// kept with their children) and requires the same answer.
func FuzzKeepNDJSON(f *testing.F) {
	f.Add(realBody(20), byte(0))
	f.Add(realBody(20), byte(1))
	f.Add([]byte(`{"a":{"b":"\u00e9\"","c":[1,{"d":-1.5e3}]},"b":tru}`+"\n"+`{"a":"x\q"}`), byte(0))
	f.Add([]byte(`{"a":1,"a":"s","b":{"c":null}}`+"\n[1]\n"+`{"b":{"c":{}},"a":01}`), byte(1))
	f.Add([]byte(`{"a":{"k\"y" : [1, -2.5e-3 ,{"x":"\u00e9\n"}]},"b":{"c\\d":"HIT"}}`+"\n"+`{"a":{"x" 1},"b":{"y\q":1}}`+"\n"+`{"a":{"x":[1,2.]},"b":{"c":-01}}`), byte(0))
	f.Add([]byte(`{"a":{"k\"y" : [1, -2.5e-3 ,{"x":"\u00e9\n"}]},"b":{"c\\d":"HIT"}}`+"\n"+`{"a":{"x" 1},"b":{"y\q":1}}`+"\n"+`{"a":{"x":[1,2.]},"b":{"c":-01}}`), byte(1))
	f.Fuzz(func(t *testing.T, body []byte, sel byte) {
		if bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) > DefaultMaxDepth {
			return // a skipped value deeper than MaxDepth is only a failure in full
		}
		keep := func(p string) bool {
			top, _, _ := strings.Cut(p, ".")
			h := fnv.New32a()
			h.Write([]byte(top))
			return byte(h.Sum32())&1 == sel&1
		}
		if _, res, _, _ := run(t, string(body), Options{Format: NDJSON}); strings.Contains(failuresText(res), "limit") {
			return // the name limits only count stored fields
		}
		checkKeepMatchesFull(t, string(body), keep)
	})
}

// failuresText joins the failure messages of res.
func failuresText(res Result) string {
	var b strings.Builder
	for _, f := range res.Failures {
		b.WriteString(f.Error)
		b.WriteByte('\n')
	}
	return b.String()
}
