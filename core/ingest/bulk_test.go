package ingest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// runBulk decodes a bulk body with @timestamp as the time field.
func runBulk(t *testing.T, body string) ([]event, BulkResult, error) {
	t.Helper()
	b := store.NewRowsBuilder()
	res, err := DecodeBulk([]byte(body), Options{TimestampField: "@timestamp", Now: testNow}, b)
	return toEvents(b.Finish(testNow)), res, err
}

// TestBulkDocsExample decodes the body of Axiom's Elasticsearch Bulk API
// page: two index actions, @timestamp the event time.
func TestBulkDocsExample(t *testing.T) {
	body := `{"index": {"_index": "myindex", "_id": "1"}}
{"@timestamp": "2023-06-06T12:00:00Z", "message": "axiom elastic bulk", "severity": "INFO"}
{"index": {"_index": "myindex", "_id": "2"}}
{"@timestamp": "2023-06-06T12:00:01Z", "message": "axiom elastic bulk api", "severity": "ERROR"}
`
	evs, res, err := runBulk(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ingested != 2 || res.Failed != 0 || len(res.Items) != 2 {
		t.Fatalf("result %+v", res)
	}
	want := []BulkItem{{Op: BulkIndex, Index: "myindex", ID: "1", Row: 0}, {Op: BulkIndex, Index: "myindex", ID: "2", Row: 1}}
	for i, it := range res.Items {
		if it != want[i] {
			t.Errorf("item %d = %+v, want %+v", i, it, want[i])
		}
	}
	t0 := time.Date(2023, 6, 6, 12, 0, 0, 0, time.UTC).UnixNano()
	if evs[0]["_time"] != t0 || evs[1]["_time"] != t0+1e9 {
		t.Errorf("times %v %v, want %d and a second later", evs[0]["_time"], evs[1]["_time"], t0)
	}
	if evs[1]["severity"] != "ERROR" || evs[0]["message"] != "axiom elastic bulk" {
		t.Errorf("events %v", evs)
	}
}

// TestBulkItemsFailAlone: a bad document, an update and a delete fail
// their own items; the documents around them are stored, and each item
// says which line was at fault.
func TestBulkItemsFailAlone(t *testing.T) {
	body := strings.Join([]string{
		`{"create":{"_index":"a"}}`,
		`{"n":1}`,
		`{"index":{}}`,
		`{"n":2,`, // broken JSON: line 4
		`{"delete":{"_index":"a","_id":"7"}}`,
		`{"update":{"_id":"8"}}`,
		`{"doc":{"n":3}}`,
		`{"index":{"_index":"b"}}`,
		`[1,2]`, // not an object: line 9
		`{"index":{}}`,
		`{"n":4,"@timestamp":"yesterday-ish"}`, // bad time: line 11
		`{"index":{}}`,
		``, // empty document: line 13
		`{"create":{"_id":"z"}}`,
		`{"n":5}`,
	}, "\n")
	evs, res, err := runBulk(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ingested != 2 || res.Failed != 4 {
		t.Fatalf("ingested %d failed %d, want 2 and 4 (update and delete are not documents)", res.Ingested, res.Failed)
	}
	if len(evs) != 2 || evs[0]["n"] != int64(1) || evs[1]["n"] != int64(5) {
		t.Fatalf("stored %v, want n=1 and n=5", evs)
	}
	want := []struct {
		op    BulkOp
		index string
		row   int
		err   string
	}{
		{BulkCreate, "a", 0, ""},
		{BulkIndex, "", -1, "line 4: invalid JSON"},
		{BulkDelete, "a", -1, "line 5: delete is not supported"},
		{BulkUpdate, "", -1, "line 7: update is not supported"},
		{BulkIndex, "b", -1, "line 9: not a JSON object but an array"},
		{BulkIndex, "", -1, "line 11: cannot parse @timestamp"},
		{BulkIndex, "", -1, "line 13: the document is empty"},
		{BulkCreate, "", 1, ""},
	}
	if len(res.Items) != len(want) {
		t.Fatalf("%d items, want %d: %+v", len(res.Items), len(want), res.Items)
	}
	for i, w := range want {
		it := res.Items[i]
		if it.Op != w.op || it.Index != w.index || it.Row != w.row || !strings.HasPrefix(it.Error, w.err) || (w.err == "") != (it.Error == "") {
			t.Errorf("item %d = %+v, want %s index %q row %d error %q", i, it, w.op, w.index, w.row, w.err)
		}
	}
	if res.Items[7].ID != "z" {
		t.Errorf("create's _id %q, want z", res.Items[7].ID)
	}
}

// TestBulkMalformedBodies: an action line that cannot be read, or an
// action without its document, refuses the body as Elasticsearch does,
// naming the line and column.
func TestBulkMalformedBodies(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"index":{}}` + "\n" + `{"a":1}` + "\n" + `{"upsert":{}}` + "\n{}\n", `line 3, column 2 (byte 22): malformed action line: unknown action "upsert"`},
		{`{"index":{}}` + "\n", "line 1, column 13 (byte 12): the index action has no document on the next line"},
		{`{"index":{}}` + "\n" + `{"a":1}` + "\n" + `{"create":{}}`, "line 3, column 14 (byte 34): the create action has no document on the next line"},
		{`not json` + "\n{}\n", "line 1, column 1 (byte 0): malformed action line: invalid character 'n' at the start of the line"},
		{`{"index":{}} {"a":1}` + "\n{}\n", "one JSON object per line"},
		{`{"index":{},"create":{}}` + "\n{}\n", "after the action's object (one action per line)"},
		{`{"index":"logs"}` + "\n{}\n", "as the action's value"},
		{`{"index":{"_index":"a" "_id":"1"}}` + "\n{}\n", "after object key:value pair"},
	} {
		_, _, err := runBulk(t, c.body)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Error(), c.want) {
			t.Errorf("body %q: error %v, want a SyntaxError containing %q", c.body, err, c.want)
		}
	}
}

// TestBulkShippers decodes the action lines real shippers write: Fluent
// Bit's es output with and without Suppress_Type_Name, Logstash and Beats
// (extra members such as _type, pipeline and require_alias are skipped),
// syslog-ng's elasticsearch-http(), CRLF line ends and blank lines
// between items.
func TestBulkShippers(t *testing.T) {
	body := "" +
		`{"create":{"_index":"fluent-bit","_type":"_doc"}}` + "\n" +
		`{"@timestamp":"2024-01-07T12:00:00.000Z","log":"a"}` + "\n" +
		`{"create":{"_index":"fluent-bit"}}` + "\n" +
		`{"@timestamp":"2024-01-07T12:00:01.000Z","log":"b"}` + "\n" +
		"\n" +
		`{ "index" : { "_index" : "logstash-2024.01.07", "_type": "_doc", "routing": null, "pipeline": "p", "require_alias": false } }` + "\r\n" +
		`{"@timestamp":"2024-01-07T12:00:02.000Z","message":"c","@version":"1"}` + "\r\n" +
		`{"index":{"_index":"syslog-ng","_type":"_doc","_id":"a\"b"}}` + "\n" +
		`{"PROGRAM":"app","MESSAGE":"d","@timestamp":"2024-01-07T13:00:03+01:00"}` + "\n"
	evs, res, err := runBulk(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ingested != 4 || res.Failed != 0 {
		t.Fatalf("result %+v", res)
	}
	idx := []string{"fluent-bit", "fluent-bit", "logstash-2024.01.07", "syslog-ng"}
	for i, it := range res.Items {
		if it.Index != idx[i] || it.Row != i || it.Error != "" {
			t.Errorf("item %d = %+v, want index %q row %d", i, it, idx[i], i)
		}
	}
	if res.Items[3].ID != `a"b` {
		t.Errorf("escaped _id read as %q", res.Items[3].ID)
	}
	base := time.Date(2024, 1, 7, 12, 0, 0, 0, time.UTC).UnixNano()
	for i, e := range evs {
		if e["_time"] != base+int64(i)*1e9 {
			t.Errorf("event %d time %v, want %d", i, e["_time"], base+int64(i)*1e9)
		}
	}
	if evs[2]["@version"] != "1" || evs[3]["MESSAGE"] != "d" {
		t.Errorf("events %v", evs)
	}
}

// TestBulkFailuresCapped: every failed item has its message even past
// MaxFailures, while Failures keeps to the cap.
func TestBulkFailuresCapped(t *testing.T) {
	var sb strings.Builder
	for range 5 {
		sb.WriteString("{\"index\":{}}\n\"x\"\n")
	}
	b := store.NewRowsBuilder()
	res, err := DecodeBulk([]byte(sb.String()), Options{MaxFailures: 2, Now: testNow}, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 5 || len(res.Failures) != 2 {
		t.Fatalf("failed %d, %d failures listed; want 5 and 2", res.Failed, len(res.Failures))
	}
	for i, it := range res.Items {
		if want := "line " + itoa(2*i+2) + ": not a JSON object"; !strings.HasPrefix(it.Error, want) {
			t.Errorf("item %d error %q, want %q", i, it.Error, want)
		}
	}
}

// TestBulkRepeatedActions: a shipper's repeated action line is read once
// and reused, so only identical bytes share an item's action; a line that
// differs by an _id, a CRLF or a trailing delete without a newline is
// read for itself.
func TestBulkRepeatedActions(t *testing.T) {
	body := `{"create":{"_index":"fb"}}` + "\n" + `{"n":1}` + "\n" +
		`{"create":{"_index":"fb"}}` + "\n" + `{"n":2}` + "\n" +
		`{"create":{"_index":"fb","_id":"x"}}` + "\n" + `{"n":3}` + "\n" +
		`{"create":{"_index":"fb"}}` + "\r\n" + `{"n":4}` + "\n" +
		`{"create":{"_index":"fb"}}` + "\n" + `{"n":5}` + "\n" +
		`{"index":{"_index":"other"}}` + "\n" + `{"n":6}` + "\n" +
		`{"delete":{"_index":"fb","_id":"y"}}`
	evs, res, err := runBulk(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 6 || len(res.Items) != 7 {
		t.Fatalf("%d events, %d items", len(evs), len(res.Items))
	}
	want := []BulkItem{
		{Op: BulkCreate, Index: "fb", Row: 0}, {Op: BulkCreate, Index: "fb", Row: 1},
		{Op: BulkCreate, Index: "fb", ID: "x", Row: 2}, {Op: BulkCreate, Index: "fb", Row: 3},
		{Op: BulkCreate, Index: "fb", Row: 4}, {Op: BulkIndex, Index: "other", Row: 5},
		{Op: BulkDelete, Index: "fb", ID: "y", Row: -1, Error: "line 13: delete is not supported: events are stored append-only, nothing was deleted"},
	}
	for i, w := range want {
		if res.Items[i] != w {
			t.Errorf("item %d = %+v, want %+v", i, res.Items[i], w)
		}
	}
}

// FuzzDecodeBulk: any body decodes without panicking; when it is not
// refused whole, every index or create item either became the next row
// or failed with a message, and update and delete items never did.
func FuzzDecodeBulk(f *testing.F) {
	for _, s := range []string{
		"{\"index\":{\"_index\":\"a\",\"_id\":\"1\"}}\n{\"@timestamp\":\"2024-01-07T12:00:00Z\",\"m\":\"x\"}\n",
		"{\"create\":{}}\n{\"a\":{\"b\":[1,2]}}\n{\"create\":{}}\n{\"a\":1}\n",
		"{\"delete\":{\"_id\":\"1\"}}\n{\"update\":{}}\n{\"doc\":{}}\n",
		"{\"index\":{}}\n\"x\"\n{\"index\":{}}\n\n",
		"{\"index\":{}}\r\n{\"a\":1}\r\n\n\n{\"index\":{}}\n{\"a\":",
		"\xEF\xBB\xBF{\"index\":{\"_index\":\"\\u00e9\"}}\n{}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := store.NewRowsBuilder()
		res, err := DecodeBulk(body, Options{TimestampField: "@timestamp", Now: testNow}, b)
		rows := b.Finish(testNow)
		if err != nil {
			return
		}
		next, failed := 0, 0
		for i, it := range res.Items {
			switch {
			case it.Op == BulkUpdate || it.Op == BulkDelete:
				if it.Row != -1 || it.Error == "" {
					t.Fatalf("item %d: %+v", i, it)
				}
			case it.Error == "":
				if it.Row != next {
					t.Fatalf("item %d row %d, want %d", i, it.Row, next)
				}
				next++
			default:
				if it.Row != -1 {
					t.Fatalf("failed item %d has row %d", i, it.Row)
				}
				failed++
			}
		}
		if next != res.Ingested || failed != res.Failed || rows.N != res.Ingested {
			t.Fatalf("rows %d, ingested %d, failed %d; items say %d and %d", rows.N, res.Ingested, res.Failed, next, failed)
		}
	})
}
