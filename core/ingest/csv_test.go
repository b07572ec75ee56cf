package ingest

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCSV(t *testing.T) {
	cases := []struct {
		name string
		in   string
		o    Options
		want []event
	}{
		{"header and typing", "s,i,f,b,e,z,big,neg\nx,42,1.5,true,,007,99999999999999999999,-3\n", Options{},
			[]event{{"_time": testNow, "s": "x", "i": int64(42), "f": 1.5, "b": true, "z": "007", "big": "99999999999999999999", "neg": int64(-3)}}},
		{"fields header", "1,2\n3,4", Options{CSVFields: []string{"a", "b"}},
			[]event{{"_time": testNow, "a": int64(1), "b": int64(2)}, {"_time": testNow, "a": int64(3), "b": int64(4)}}},
		{"delimiter", "a;b\n1,5;x\n", Options{CSVDelimiter: ';'},
			[]event{{"_time": testNow, "a": "1,5", "b": "x"}}},
		{"tab delimiter", "a\tb\n1\t2\n", Options{CSVDelimiter: '\t'},
			[]event{{"_time": testNow, "a": int64(1), "b": int64(2)}}},
		{"multibyte delimiter", "a§b\n1§2\n", Options{CSVDelimiter: '§'},
			[]event{{"_time": testNow, "a": int64(1), "b": int64(2)}}},
		{"quotes", "a,b\n\"x,\"\"y\"\"\",\"multi\r\nline\"\r\n\"\",\"1\"\n", Options{},
			[]event{{"_time": testNow, "a": "x,\"y\"", "b": "multi\nline"}, {"_time": testNow, "b": int64(1)}}},
		{"crlf and blank lines", "a,b\r\n\r\n1,2\r\n\n", Options{},
			[]event{{"_time": testNow, "a": int64(1), "b": int64(2)}}},
		{"time column", "_time,v\n2024-01-02T03:04:05Z,1\n1704164645,2\n", Options{},
			[]event{{"_time": int64(1704164645) * 1e9, "v": int64(1)}, {"_time": int64(1704164645) * 1e9, "v": int64(2)}}},
		{"custom time column kept", "when,v\n02/Jan/2024:03:04:05 +0000,1\n", Options{TimestampField: "when", TimestampFormat: "02/Jan/2006:15:04:05 -0700"},
			[]event{{"_time": int64(1704164645) * 1e9, "when": "02/Jan/2024:03:04:05 +0000", "v": int64(1)}}},
		{"reserved and labels", "_sysTime,x\n1,2\n", Options{Labels: map[string]any{"region": "eu"}},
			[]event{{"_time": testNow, "_user__sysTime": int64(1), "x": int64(2), "region": "eu"}}},
		{"bom and empty header name", "\xef\xbb\xbfa,\n1,2\n", Options{},
			[]event{{"_time": testNow, "a": int64(1), "column2": int64(2)}}},
		{"declared columns", "x,007,1.50,TRUE,\ny,1\nz,2,3,4,5,6\n", Options{CSVDeclared: true, CSVFields: []string{"s", "z", "f", "b", "e"}},
			[]event{{"_time": testNow, "s": "x", "z": "007", "f": "1.50", "b": "TRUE", "e": ""},
				{"_time": testNow, "s": "y", "z": "1"},
				{"_time": testNow, "s": "z", "z": "2", "f": "3", "b": "4", "e": "5"}}},
		{"header only", "a,b\n", Options{}, []event{}},
		{"empty", "", Options{}, []event{}},
		{"not numbers", "a,b,c,d\n1.,.5,1e,+1\n", Options{},
			[]event{{"_time": testNow, "a": "1.", "b": ".5", "c": "1e", "d": "+1"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Format = CSV
			got, res, _, err := run(t, c.in, c.o)
			must(t, err)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %#v\nwant %#v", got, c.want)
			}
			if res.Failed != 0 {
				t.Fatalf("%+v", res)
			}
		})
	}
}

func TestCSVBadRows(t *testing.T) {
	in := "a,b\n1,2\n3\n4,5,6\n\"x\"y,7\n8,\"9\"\n\"open,1\n"
	got, res, _, err := run(t, in, Options{Format: CSV})
	must(t, err)
	if len(got) != 2 {
		t.Fatalf("events %v", got)
	}
	checkFailures(t, res, 2, []string{
		"line 3: row has 1 fields, the header has 2",
		"line 4: row has 3 fields, the header has 2",
		"line 5: unexpected character 'y' after a closing quote",
		"line 7: quoted field is never closed",
	})
}

func TestCSVBadHeaderIsAnError(t *testing.T) {
	_, _, _, err := run(t, "a,\"b\nc", Options{Format: CSV})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.Column != 3 {
		t.Fatalf("err %v, want a SyntaxError at line 1 column 3", err)
	}
	if _, _, _, err := run(t, "a\n1", Options{Format: CSV, CSVDelimiter: '"'}); err == nil {
		t.Fatal("a quote delimiter was accepted")
	}
}

// The axiom-go integration test body: lines start with tabs (kept in the
// values), the first row lacks the closing parenthesis.
func TestCSVAxiomGoSample(t *testing.T) {
	body := "time,remote_ip,remote_user,request,response,bytes,referrer,agent\n" +
		"\t\t17/May/2015:08:05:30 +0000,93.180.71.1,-,GET /downloads/product_1 HTTP/1.1,304,0,-,Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.21\n" +
		"\t\t17/May/2015:08:05:31 +0000,93.180.71.2,-,GET /downloads/product_1 HTTP/1.1,304,0,-,Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.21)"
	got, res, _, err := run(t, body, Options{Format: CSV})
	must(t, err)
	if res.Ingested != 2 || res.ProcessedBytes != 325 {
		t.Fatalf("%+v", res)
	}
	if got[1]["time"] != "\t\t17/May/2015:08:05:31 +0000" || got[1]["response"] != int64(304) || len(got[1]) != 9 {
		t.Fatalf("%#v", got[1])
	}
	// The same rows without the header line, named by X-Axiom-CSV-Fields.
	noHeader := body[strings.IndexByte(body, '\n')+1:]
	noHeader = strings.TrimPrefix(noHeader, "\t\t")
	fields := SplitCSVFields("time,remote_ip,remote_user,request,response,bytes,referrer,agent")
	got, res, _, err = run(t, noHeader, Options{Format: CSV, CSVFields: fields})
	must(t, err)
	if res.Ingested != 2 || res.ProcessedBytes != 258 || got[0]["agent"] != "Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.21" {
		t.Fatalf("%+v %#v", res, got[0])
	}
}
