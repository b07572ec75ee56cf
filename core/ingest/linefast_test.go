package ingest

import (
	"bytes"
	"hash/fnv"
	"reflect"
	"strings"
	"testing"
)

// checkLineFastMatchesBounded decodes body with lineFast and with every
// line cut out first (the way it was read before lineFast) and requires
// the same rows, counts, failure messages and error.
func checkLineFastMatchesBounded(t *testing.T, body string, o Options) {
	t.Helper()
	got, gres, _, gerr := run(t, body, o)
	boundedLines = true
	want, wres, _, werr := run(t, body, o)
	boundedLines = false
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, bounded lines %v", body, gerr, werr)
	}
	if !reflect.DeepEqual(gres, wres) {
		t.Fatalf("%q: result %+v\nbounded lines %+v", body, gres, wres)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: events %v\nbounded lines %v", body, got, want)
	}
}

// lineFastCases are lines whose end matters: whitespace with newlines
// between tokens, breaks that run into the next line, trailing data,
// blanks and CRs, errors in skipped and kept fields.
var lineFastCases = []string{
	"{\"a\":1}\n{\"a\":\n2}\n{\"a\":3}",
	"{\"a\":1,\n\"b\":2}\n{\"a\":4}",
	"{\"a\":\"x\n\"}\n{\"a\":5}",
	"{\"a\":\"x\\\n\"}\n{\"a\":5}",
	"{\"a\":tru\ne}\n{\"a\":6}",
	"{\"a\":1\n}\n",
	"{\"a\":1} \t\r\n\r\n  \n{\"a\":2}\r\n",
	"{\"a\":1} x\n{\"a\":2}",
	"{\"a\":1}{\"a\":2}\n",
	"{\"a\":1}\n[1,\n2]\n\"s\"\n7\n",
	"\n\n   \n",
	"{\"a\":{\"b\":[1,{\"c\":\"d\"}\n]}}\n{\"a\":1}",
	"{\"a\":\"\\u00e9\\ud83d\\ude00\",\"m\":\"tab\\there \\\"q\\\"\"}\n",
	"{\"m\":\"bad \\x escape\",\"a\":1}\n{\"a\":2}\n",
	"{\"m\":[1,2}\n{\"a\":2}\n",
	"{\"_time\":\"bad\",\"a\":1}\n{\"a\":\n",
	"{\"a\":1",
	"{\"a\":1}\n{",
	"\xef\xbb\xbf{\"a\":1}\n",
	"{\"a\":\"x\"}  \n  {\"a\":\"y\"}",
	"hello\nworld",
	"{\"server_datacenter\":\"FRA\",\"a\":25.619}\n{\"server_dbtacenter\":\"X\",\"a\":1234567.1234567}\n{\"server_datacenter\":1.,\"a\":12345678}\n",
	"{\"_time\":\"2024-03-01T00:00:15.6Z\",\"a\":1}\n{\"_time\":\"2024-03-01T00:61:15Z\",\"a\":2}\n{\"_time\":\"2024-03-01T00:01:15+05:30\",\"a\":3e2}\n",
	"{\"g\":{\"c\":[1,{\"d\":\"e\"}],\"x\":true},\"a\":1}\n{\"g\":{\"c\":[1,{\"d\":\"e\"}},\"a\":2}\n",
}

func TestLineFastMatchesBounded(t *testing.T) {
	body := string(realBody(200))
	cases := append([]string{body, strings.ReplaceAll(body, ",", ",\n")}, lineFastCases...)
	for _, c := range cases {
		checkLineFastMatchesBounded(t, c, Options{Format: NDJSON})
		checkLineFastMatchesBounded(t, c, Options{Format: NDJSON, Keep: keepPaths("a", "uri")})
	}
}

// A line the fast read gives up on is decoded again: its event must not
// be stored twice, nor its failure counted twice. An object broken over
// two lines is two broken lines.
func TestLineFastRedoCountsOnce(t *testing.T) {
	_, res, rows, err := run(t, "{\"a\":1,\n\"b\":2}\n{\"a\":\"x\n\"}\n{\"a\":3}\n", Options{Format: NDJSON})
	must(t, err)
	if rows.N != 1 || res.Ingested != 1 || res.Failed != 4 || len(res.Failures) != 4 {
		t.Fatalf("%d rows, %+v; want the last line only, four lines failed", rows.N, res)
	}
	for i, want := range []string{
		"line 1: invalid JSON at column 8: invalid end of input",
		"line 2: invalid JSON at column 4: invalid character ':' after the event",
		"line 3: invalid JSON at column 6: unterminated string",
		"line 4: invalid JSON at column 1: unterminated string",
	} {
		if !strings.HasPrefix(res.Failures[i].Error, want) {
			t.Errorf("failure %d is %q, want %q…", i, res.Failures[i].Error, want)
		}
	}
}

// FuzzLineFast holds lineFast to the bounded read on any body, in full and
// projected on a keep set the fuzzer picks.
func FuzzLineFast(f *testing.F) {
	for _, c := range lineFastCases {
		f.Add([]byte(c), byte(0))
		f.Add([]byte(c), byte(1))
	}
	f.Add(realBody(5), byte(0))
	f.Fuzz(func(t *testing.T, body []byte, sel byte) {
		if bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) > 9000 {
			return // the bounded read and lineFast share skip; depth is not what differs
		}
		o := Options{Format: NDJSON, MaxDepth: 8}
		if sel&2 != 0 {
			o.Keep = func(p string) bool {
				top, _, _ := strings.Cut(p, ".")
				h := fnv.New32a()
				h.Write([]byte(top))
				return byte(h.Sum32())&1 == sel&1
			}
		}
		checkLineFastMatchesBounded(t, string(body), o)
	})
}
