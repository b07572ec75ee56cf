package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestFormatFromContentType(t *testing.T) {
	for ct, want := range map[string]Format{
		"application/json": JSON, "application/json; charset=utf-8": JSON, " Application/JSON ": JSON,
		"application/x-ndjson": NDJSON, "application/x-json-stream": NDJSON, "application/jsonl": NDJSON,
		"text/csv": CSV, "text/csv;charset=UTF-8": CSV,
	} {
		got, err := FormatFromContentType(ct)
		if err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", ct, got, err, want)
		}
	}
	for _, ct := range []string{"", "text/plain", "application/xml", "json"} {
		if _, err := FormatFromContentType(ct); err == nil {
			t.Errorf("%q accepted", ct)
		}
	}
}

func TestDecompress(t *testing.T) {
	plain := []byte(strings.Repeat(`{"a":1,"b":"some text"}`+"\n", 1000))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	zs := enc.EncodeAll(plain, nil)
	// A zstd stream without a content size in its header, in two frames.
	var zs2 bytes.Buffer
	sw, _ := zstd.NewWriter(&zs2)
	sw.Write(plain[:100])
	sw.Close()
	sw.Reset(&zs2)
	sw.Write(plain[100:])
	sw.Close()

	for _, c := range []struct {
		enc  string
		body []byte
	}{{"", plain}, {"identity", plain}, {" GZIP ", gz.Bytes()}, {"x-gzip", gz.Bytes()}, {"zstd", zs}, {"zstd", zs2.Bytes()}} {
		got, err := Decompress(c.body, c.enc, 1<<20)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%q: %d bytes, %v", c.enc, len(got), err)
		}
		// Exactly at the limit is fine; one byte less is too large.
		if _, err := Decompress(c.body, c.enc, int64(len(plain))); err != nil {
			t.Errorf("%q at the limit: %v", c.enc, err)
		}
		_, err = Decompress(c.body, c.enc, int64(len(plain))-1)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "limit") {
			t.Errorf("%q over the limit: %v", c.enc, err)
		}
	}
	if _, err := Decompress(plain, "br", 0); err == nil || !strings.Contains(err.Error(), `"br"`) {
		t.Errorf("unknown encoding: %v", err)
	}
	for _, enc := range []string{"gzip", "zstd"} {
		if _, err := Decompress([]byte("not compressed at all"), enc, 0); err == nil {
			t.Errorf("%s: garbage accepted", enc)
		}
		if _, err := Decompress(gz.Bytes()[:len(gz.Bytes())/2], "gzip", 0); err == nil {
			t.Errorf("truncated gzip accepted")
		}
	}
}

func TestParseLabels(t *testing.T) {
	m, err := ParseLabels(`{"region":"eu-west-1","instance":1,"ratio":0.5,"tags":["a"],"o":{"k":2}}`)
	must(t, err)
	want := map[string]any{"region": "eu-west-1", "instance": int64(1), "ratio": 0.5, "tags": []any{"a"}, "o": map[string]any{"k": int64(2)}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("%#v", m)
	}
	if m, err := ParseLabels("  "); m != nil || err != nil {
		t.Fatalf("empty: %v %v", m, err)
	}
	for _, bad := range []string{`[1]`, `{"a":`, `{"a":1} {}`, `null`} {
		if _, err := ParseLabels(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Unsupported label values are an error, not a silent drop.
	if _, _, _, err := run(t, `[{}]`, Options{Labels: map[string]any{"c": make(chan int)}}); err == nil {
		t.Error("a channel label was accepted")
	}
}

func TestSplitCSVFields(t *testing.T) {
	if got := SplitCSVFields(" a, b ,c"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("%q", got)
	}
	if got := SplitCSVFields(""); got != nil {
		t.Fatalf("%q", got)
	}
}

// The axiom-go integration test sends these two events as zstd NDJSON
// (json.Encoder: sorted keys, one newline each) and expects
// processedBytes 448: the decompressed length.
func TestAxiomGoIngestEventsProcessedBytes(t *testing.T) {
	var nd bytes.Buffer
	zw, _ := zstd.NewWriter(&nd)
	enc := json.NewEncoder(zw)
	for i, ip := range []string{"93.180.71.1", "93.180.71.2"} {
		enc.Encode(map[string]any{
			"time": "17/May/2015:08:05:3" + string(rune('2'+i)) + " +0000", "remote_ip": ip, "remote_user": "-",
			"request": "GET /downloads/product_1 HTTP/1.1", "response": 304, "bytes": 0, "referrer": "-",
			"agent": "Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.21)",
		})
	}
	zw.Close()
	body, err := Decompress(nd.Bytes(), "zstd", 100<<20)
	must(t, err)
	got, res, _, err := run(t, string(body), Options{Format: NDJSON})
	must(t, err)
	if res.Ingested != 2 || res.ProcessedBytes != 448 {
		t.Fatalf("%+v", res)
	}
	if got[1]["response"] != int64(304) || got[1]["time"] != "17/May/2015:08:05:33 +0000" || got[1]["_time"] != testNow {
		t.Fatalf("%#v", got[1])
	}
}

func TestParseCSVDelimiter(t *testing.T) {
	for in, want := range map[string]rune{"": ',', ";": ';', "\t": '\t', `\t`: '\t', "|": '|', "§": '§'} {
		if got, err := ParseCSVDelimiter(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{";;", `"`, "\n", "\xff"} {
		if _, err := ParseCSVDelimiter(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSniff(t *testing.T) {
	for body, want := range map[string]Format{
		`[{"a":1}]`:              JSON,
		"\ufeff [ ]":             JSON,
		"":                       JSON,
		`{"a":1}`:                NDJSON,
		"\n\t{\"a\":1}\n{}":      NDJSON,
		"a,b\n1,2\n":             CSV,
		"\xef\xbb\xbfname,age\n": CSV,
	} {
		if got := Sniff([]byte(body)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", body, got, want)
		}
	}
}
