package ingest

import (
	"encoding/binary"
	"fmt"
	"github.com/aplite/aplite/core/store"
	"strconv"
	"strings"
	"testing"
)

// checkSkipFast holds skipFast to skip on one input: where skipFast
// gives an end, skip must accept the value and end at the same byte.
// It reports whether skipFast took the value.
func checkSkipFast(t *testing.T, in string) bool {
	t.Helper()
	buf := []byte(in)
	j := skipFast(buf, 0)
	if j < 0 {
		return false
	}
	d := &decoder{buf: buf}
	if err := d.skip(); err != nil {
		t.Fatalf("skipFast(%q) = %d, skip fails: %v", in, j, err)
	}
	if d.pos != j {
		t.Fatalf("skipFast(%q) = %d, skip ends at %d", in, j, d.pos)
	}
	return true
}

// The common compact values are taken, each to its exact end.
func TestSkipFastTakesCompactValues(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":1}`, `["x","y",3]`, `{"city":"Chennai","country":"India"}`,
		`{"status":"HIT","age_s":9110}`, `["slow","slow","beta"]`,
		`{"a":[1,{"b":[[],{}]},-0.5e+3,true,false,null],"c":{"d":{"e":"` + strings.Repeat("long ", 40) + `"}}}`,
		`[[[[[[[[1]]]]]]]]`, `{"a":{}}`, `[{},[]]`, "{\"é\":\"\xff\"}",
	} {
		for _, tail := range []string{"", ",\"next\":1}", "}", "]"} {
			if !checkSkipFast(t, in+tail) {
				t.Errorf("skipFast does not take %q", in+tail)
			}
		}
	}
}

// What skipFast cannot vouch for is left to skip: mistakes, whitespace,
// escapes, nesting past 64 levels.
func TestSkipFastLeavesTheRest(t *testing.T) {
	for _, in := range []string{
		`{"a":1,}`, `{"a" :1}`, `{"a": 1}`, `[1 ,2]`, `[1,2}`, `{"a":1]`, `{1:2}`, `{"a"}`,
		`{"a":"x\"y"}`, `{"a\q":1}`, `["x` + "\x01" + `"]`, `[01]`, `[1.]`, `[-]`, `[1e]`, `[.5]`,
		`[tru]`, `[nul]`, `[fals]`, `[True]`, `{"a":1`, `[`, `{"a":`, `{"a"`, `["abc`,
		strings.Repeat("[", 65) + strings.Repeat("]", 65), `{"a":x}`, `[,1]`, `{,}`,
	} {
		if checkSkipFast(t, in) {
			t.Errorf("skipFast takes %q", in)
		}
	}
	if !checkSkipFast(t, strings.Repeat("[", 64)+strings.Repeat("]", 64)) {
		t.Errorf("skipFast does not take 64 levels")
	}
}

// FuzzSkipFast holds skipFast to skip on any input.
func FuzzSkipFast(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c"}],"d":-1.5e3}`, `[true,false,null,"x\"y"]`, `{"a":1,}`, `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 0 && (in[0] == '{' || in[0] == '[') {
			checkSkipFast(t, string(in))
		}
	})
}

// objectFastTakes decodes each line of body with objectFast alone and
// reports the first line it leaves to the bounded read.
func objectFastTakes(t *testing.T, body string, o Options) {
	t.Helper()
	o = o.withDefaults()
	d := new(decoder)
	d.init(&o, store.NewRowsBuilder(), len(body))
	for n, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		d.buf, d.pos = []byte(line), 0
		d.begin()
		if _, err := d.objectFast(-1, 1); err != nil || d.pos != len(line) {
			t.Fatalf("objectFast leaves line %d to the bounded read (%v at %d of %d): %s", n+1, err, d.pos, len(line), line)
		}
		d.end("line", n+1)
	}
}

// The lines of real logs, compact or spaced the way Python's json.dumps
// writes them, are all read by objectFast, in full and projected.
func TestObjectFastTakesRealLines(t *testing.T) {
	body := string(realBody(2000))
	spaced := strings.NewReplacer(`":`, `": `, `,"`, `, "`).Replace(body)
	for _, b := range []string{body, spaced} {
		objectFastTakes(t, b, Options{Format: NDJSON})
		objectFastTakes(t, b, Options{Format: NDJSON, Keep: keepPaths("status")})
		objectFastTakes(t, b, Options{Format: NDJSON, Keep: keepPaths("geo.city", "cache", "tags")})
	}
}

// nonDigits flags exactly the bytes that are not ASCII digits, whatever
// the other bytes of the word hold.
func TestNonDigits(t *testing.T) {
	fill := []byte("09/:a\x00\xff5")
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			for _, f := range fill {
				var w [8]byte
				for k := range w {
					w[k] = f
				}
				w[pos] = byte(c)
				m := nonDigits(binary.LittleEndian.Uint64(w[:]))
				for k, b := range w {
					if got, want := m>>(8*k+7)&1 == 1, b-'0' > 9; got != want {
						t.Fatalf("nonDigits(%q) byte %d: %v, want %v", w, k, got, want)
					}
				}
			}
		}
	}
}

// A skipped number is stepped over a word at a time or, past a word of
// digits or with an exponent, by fastNumber; either way to its end, and a
// broken one is left to the bounded read.
func TestObjectFastNumbers(t *testing.T) {
	for _, n := range []string{"1", "7.5", "25.619", "1234567", "12345678", "1234567.1234567", "1.12345678",
		"123456789012345678901234567890", "1e5", "1.5E+3", "2.5e-3", "0", "0.5", "-3", "-0.25", "9.0"} {
		line := `{"a":` + n + `,"b":{"c":` + n + `},"s":1}`
		objectFastTakes(t, line+"\n"+line+"\n", Options{Format: NDJSON, Keep: keepPaths("s")})
	}
	for _, n := range []string{"1.", "01", "1.e5", "1e", "1.5e+", "-", "1.2.3", "1x", "12345678.", "1234567.x"} {
		checkLineFastMatchesBounded(t, `{"a":`+n+`,"s":1}`+"\n"+`{"a":`+n+`}`+"\n", Options{Format: NDJSON, Keep: keepPaths("s")})
		_, res, _, _ := run(t, `{"a":`+n+`,"s":1,"pad":"`+strings.Repeat("x", 20)+`"}`+"\n", Options{Format: NDJSON, Keep: keepPaths("s")})
		if res.Failed != 1 {
			t.Errorf("%s: %+v, want the line failed", n, res)
		}
	}
}

// wordDigits reads one to seven digits, whatever follows them.
func TestWordDigits(t *testing.T) {
	for _, s := range []string{"1", "9", "10", "99", "404", "1000000", "9999999", "1234567", "7654321", "25", "100"} {
		for _, tail := range []string{",xxxxxxx", "}\x00\xff\xff\xff\xff\xff", ".5555555", "\"\"\"\"\"\"\""} {
			b := []byte(s + tail)
			want, _ := strconv.ParseUint(s, 10, 64)
			if got := wordDigits(binary.LittleEndian.Uint64(b), len(s)); got != want {
				t.Errorf("wordDigits(%q, %d) = %d", b, len(s), got)
			}
		}
	}
}

// Keys that share their first eight bytes, or all but one byte in the
// middle or at the end, are told apart by objectFast as by the bounded
// read when one is predicted and the other is there.
func TestObjectFastLongKeys(t *testing.T) {
	twins := [][2]string{{"abcdefgh", "abcdefgX"}, {"abcdefghij", "abcdefgXij"}, {"abcdefghij", "abcdefghiX"},
		{"server_datacenter", "server_datacentes"}, {"server_datacenter", "server_dbtacenter"},
		{"req_duration_ms", "req_duration_mx"}, {"req_duration_ms", "req_duratiox_ms"}, {"req_duration_ms", "req_duration_m"},
		{"x234567890123456789", "x234567890X23456789"}, {"x2345678901234567890123", "x2345678901234567890124"}}
	var b strings.Builder
	for i, tw := range twins {
		for k := 0; k < 4; k++ {
			fmt.Fprintf(&b, `{"a":%d,"%s":%d,"%s":"v%d"}`+"\n", i, tw[k%2], k, tw[(k+1)%2], k)
		}
	}
	for _, o := range []Options{{Format: NDJSON}, {Format: NDJSON, Keep: keepPaths("abcdefghij", "server_datacenter", "req_duration_ms", "x234567890123456789", "x2345678901234567890123")}} {
		checkLineFastMatchesBounded(t, b.String(), o)
		objectFastTakes(t, b.String(), o)
	}
}

// Kept numbers read from words are the general decoder's numbers, to the
// bit, and the timestamp read through the hour cache its time.
func TestObjectFastKeptValues(t *testing.T) {
	var b strings.Builder
	for i, n := range []string{"1", "404", "1234567", "12345678", "25.619", "0.59", "1234567.1234567", "1.12345678", "9.0", "-3",
		"0", "1e3", "3.25E-2", "100000000000000000000", "7.000001"} {
		fmt.Fprintf(&b, `{"_time":"2024-03-01T00:%02d:15.6%dZ","n":%s,"m":{"n":%s}}`+"\n", i, i, n, n)
	}
	body := b.String()
	for _, o := range []Options{{Format: NDJSON}, {Format: NDJSON, Keep: keepPaths("n", "m.n")}} {
		checkLineFastMatchesBounded(t, body, o)
		objectFastTakes(t, body, o)
	}
}

// The real logs read through objectFast (optional fields taken by the
// second prediction, timestamps by the hour cache, numbers from words)
// are what encoding/json reads, in full and projected.
func TestObjectFastMatchesReference(t *testing.T) {
	body := realBody(3000)
	want, failed, err := refJSON(body, Options{Format: NDJSON})
	must(t, err)
	got, res, _, err := run(t, string(body), Options{Format: NDJSON})
	must(t, err)
	compareEvents(t, body, got, res, want, failed)
	keep := keepPaths("status", "req_duration_ms", "server_datacenter", "geo.city", "cache.age_s")
	got, res, _, err = run(t, string(body), Options{Format: NDJSON, Keep: keep})
	must(t, err)
	compareEvents(t, body, got, res, restrict(want, keep), failed)
}

// A predicted key under another parent is not the key: after an object
// that was empty this time, the key that followed its first member last
// time may come at the outer level.
func TestObjectFastPredictionKeepsParents(t *testing.T) {
	body := "{\"a\":{\"x\":1},\"y\":1}\n{\"a\":{},\"x\":2}\n{\"a\":{\"x\":3}}\n{\"a\":[],\"x\":4}\n{\"a\":{\"x\":{\"x\":5}},\"x\":6}\n"
	for _, o := range []Options{{Format: NDJSON}, {Format: NDJSON, Keep: keepPaths("x", "a.x.x")}} {
		checkLineFastMatchesBounded(t, body, o)
		objectFastTakes(t, body, o)
	}
	want, failed, err := refJSON([]byte(body), Options{Format: NDJSON})
	must(t, err)
	got, res, _, err := run(t, body, Options{Format: NDJSON})
	must(t, err)
	compareEvents(t, []byte(body), got, res, want, failed)
}
