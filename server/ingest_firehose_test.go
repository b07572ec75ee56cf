package server

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// The request shape is AWS's "HTTP endpoint delivery request and
// response specifications" (docs.aws.amazon.com/firehose/latest/dev/
// httpdeliveryrequestresponse.html): headers X-Amz-Firehose-Protocol-
// Version 1.0, X-Amz-Firehose-Request-Id, X-Amz-Firehose-Access-Key,
// Content-Type application/json, optional Content-Encoding gzip, and the
// body {"requestId","timestamp","records":[{"data":base64}]}.

// firehoseBody builds a delivery request body from the records' raw data.
func firehoseBody(id string, data ...[]byte) map[string]any {
	recs := make([]map[string]string, len(data))
	for i, d := range data {
		recs[i] = map[string]string{"data": base64.StdEncoding.EncodeToString(d)}
	}
	return map[string]any{"requestId": id, "timestamp": time.Now().UnixMilli(), "records": recs}
}

// firehose posts body as Firehose does: the key in its header, no
// Authorization, no org header.
func (ts *testServer) firehose(ds, key, id string, body any, encoding string) resp {
	ts.t.Helper()
	h := map[string]string{"X-Amz-Firehose-Protocol-Version": "1.0", "X-Amz-Firehose-Request-Id": id,
		"X-Amz-Firehose-Source-Arn": "arn:aws:firehose:us-east-1:123456789:deliverystream/test"}
	if key != "" {
		h[firehoseKeyHeader] = key
	}
	return ts.do(req{method: "POST", path: "/v1/ingest/" + ds + "/firehose", token: "-", noOrg: true,
		body: body, encoding: encoding, headers: h})
}

// firehoseAnswer checks the answer is exactly Firehose's shape: the
// request id echoed, a timestamp of now in ms, errorMessage only on
// failure; it returns the message.
func firehoseAnswer(t *testing.T, r resp, status int, id string, before time.Time) string {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if ct := r.header["Content-Type"]; ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var got map[string]any
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("answer %s: %v", r.body, err)
	}
	keys := []string{"requestId", "timestamp"}
	if status != 200 {
		keys = append(keys, "errorMessage")
	}
	for k := range got {
		if !slices.Contains(keys, k) {
			t.Errorf("answer %s has key %q Firehose does not know", r.body, k)
		}
	}
	if got["requestId"] != id {
		t.Errorf("requestId %v, want %q", got["requestId"], id)
	}
	ts, _ := got["timestamp"].(float64)
	if int64(ts) < before.UnixMilli() || int64(ts) > time.Now().UnixMilli() {
		t.Errorf("timestamp %v is not the time of the answer (%d..)", got["timestamp"], before.UnixMilli())
	}
	msg, _ := got["errorMessage"].(string)
	if status != 200 && msg == "" {
		t.Errorf("failure %d without errorMessage: %s", status, r.body)
	}
	return msg
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// A delivery as Firehose sends it, authenticated by the access key alone,
// stores every record's events: a JSON object, NDJSON, a pretty-printed
// object, plain text lines (as message), a gzip record (CloudWatch Logs
// subscriptions send those), and the whole body gzip-encoded.
func TestFirehoseDelivery(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("fh")
	key := ts.newToken(map[string]any{"fh": map[string]any{"ingest": []string{"create"}}}, nil).Token
	body := firehoseBody("req-1",
		[]byte(`{"a":1,"_time":"2024-01-02T03:04:05Z"}`+"\n"),
		[]byte("{\"a\":2}\n{\"a\":3}\n"),
		[]byte("{\n  \"a\": 4,\n  \"b\": \"x\"\n}\n"),
		[]byte("GET /index.html 200\r\n\nsaid \"hi\"\tthere"),
		gzipped([]byte(`{"a":5,"b":"gz"}`)),
		[]byte(""),
	)
	before := time.Now()
	for _, enc := range []string{"", "gzip"} {
		firehoseAnswer(t, ts.firehose("fh", key, "req-1", body, enc), 200, "req-1", before)
	}
	got := ts.rowsOf("['fh'] | where _time > ago(3650d)", "a", "b", "message")
	var want []string
	for range 2 {
		want = append(want, "a=1", "a=2", "a=3", "a=4,b=x", "a=5,b=gz", "message=GET /index.html 200", `message=said "hi"`+"\tthere")
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("stored\n%q\nwant\n%q", got, want)
	}
	if n := ts.rowsOf("['fh'] | where _time == datetime(2024-01-02T03:04:05Z)", "a"); len(n) != 2 {
		t.Errorf("the record's _time was not the event time: %q", n)
	}
}

// Every failure answers in Firehose's shape with a status that says
// whether Firehose should retry, and stores nothing.
func TestFirehoseFailures(t *testing.T) {
	ts := newTestServerConfig(t, Config{MaxBodyBytes: 64 << 10})
	ts.createDataset("fh")
	ts.createDataset("other")
	key := ts.newToken(map[string]any{"fh": map[string]any{"ingest": []string{"create"}}}, nil).Token
	good := firehoseBody("r", []byte(`{"a":1}`))
	bomb := gzipped(bytes.Repeat([]byte(`{"a":1}`+"\n"), 20000)) // 160 kB inflated, past the 64 kB cap
	cases := []struct {
		name, ds, key string
		body          any
		status        int
		msg           string
	}{
		{"no key", "fh", "", good, 403, "missing X-Amz-Firehose-Access-Key header"},
		{"unknown key", "fh", "xaat-00000000-0000-0000-0000-000000000000", good, 403, "invalid token"},
		{"key for another dataset", "other", key, good, 403, `not allowed to ingest into dataset "other"`},
		{"no such dataset", "nope", ts.token, good, 404, `dataset "nope" not found`},
		{"not JSON", "fh", key, "records=1", 400, "invalid Firehose request body: invalid JSON at byte 1"},
		{"not an object", "fh", key, "[]", 400, "invalid Firehose request body: a JSON array, not the object {requestId, timestamp, records}"},
		{"data not a string", "fh", key, `{"records":[{"data":5}]}`, 400, "invalid Firehose request body at byte 21: records.data is a number, not a string"},
		{"not base64", "fh", key, map[string]any{"requestId": "r", "records": []map[string]string{
			{"data": base64.StdEncoding.EncodeToString([]byte(`{"a":1}`))}, {"data": "%%%"}}}, 400, "records[1].data: not base64"},
		{"broken gzip record", "fh", key, firehoseBody("r", []byte{0x1f, 0x8b, 1, 2, 3}), 400, "records[0].data: invalid gzip"},
		{"records past the body cap", "fh", key, firehoseBody("r", []byte(`{"a":1}`), bomb), 413, "the records decode to more than the limit of 65536 bytes (at records[1].data)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.ds == "nope" || c.key == ts.token {
				// The admin's personal token names its org in the header.
				r := ts.do(req{method: "POST", path: "/v1/ingest/" + c.ds + "/firehose", body: c.body,
					headers: map[string]string{"X-Amz-Firehose-Request-Id": "id-" + c.name}})
				if msg := firehoseAnswer(t, r, c.status, "id-"+c.name, time.Now().Add(-time.Minute)); !strings.Contains(msg, c.msg) {
					t.Errorf("errorMessage %q, want %q", msg, c.msg)
				}
				return
			}
			r := ts.firehose(c.ds, c.key, "id-"+c.name, c.body, "")
			if msg := firehoseAnswer(t, r, c.status, "id-"+c.name, time.Now().Add(-time.Minute)); !strings.Contains(msg, c.msg) {
				t.Errorf("errorMessage %q, want %q", msg, c.msg)
			}
		})
	}
	if n := ts.count("fh"); n != 0 {
		t.Errorf("failed deliveries stored %d events", n)
	}
}

// A record line that is not a valid object fails alone, as a line does on
// /ingest: the rest is stored and Firehose is told 200, since any other
// answer would make it send the stored events again.
func TestFirehoseBadLineFailsAlone(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("fh")
	r := ts.do(req{method: "POST", path: "/v1/ingest/fh/firehose", body: firehoseBody("r", []byte("{\"a\":1}\n{\"a\":\n{\"a\":3}"))})
	firehoseAnswer(t, r, 200, "r", time.Now().Add(-time.Minute))
	if got := ts.rowsOf("['fh']", "a"); !slices.Equal(got, []string{"a=1", "a=3"}) {
		t.Fatalf("stored %q", got)
	}
}

// The Firehose door counts against the org's ingest limit like /ingest:
// past it the answer is 430 with Retry-After (Firehose retries it), in
// Firehose's shape.
func TestFirehoseIngestLimit(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("fh")
	ts.driveLimits()
	ts.setLicense(func(l *meta.License) { l.IngestLimitPerSecond = 1 })
	body := firehoseBody("r", []byte(`{"a":1}`))
	send := func() resp {
		return ts.do(req{method: "POST", path: "/v1/ingest/fh/firehose", body: body,
			headers: map[string]string{"X-Amz-Firehose-Request-Id": "r"}})
	}
	firehoseAnswer(t, send(), 200, "r", time.Now().Add(-time.Minute))
	r := send()
	if msg := firehoseAnswer(t, r, 430, "r", time.Now().Add(-time.Minute)); !strings.Contains(msg, "ingest limit exceeded") {
		t.Errorf("errorMessage %q", msg)
	}
	if r.header["Retry-After"] == "" {
		t.Errorf("430 without Retry-After: %v", r.header)
	}
	if n := ts.count("fh"); n != 1 {
		t.Errorf("stored %d events, want 1", n)
	}
}

// Deliveries in parallel (Firehose opens several connections) each store
// their own records: the reused buffers are never shared.
func TestFirehoseConcurrentDeliveries(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("fh")
	const senders, perSender, records = 4, 5, 50
	errs := make(chan error, senders)
	for g := range senders {
		go func() {
			done := false
			defer func() { // ts.do ends this goroutine on a transport error
				if !done {
					errs <- fmt.Errorf("sender %d stopped", g)
				}
			}()
			for i := range perSender {
				data := make([][]byte, records)
				for r := range records {
					data[r] = []byte(fmt.Sprintf(`{"g":%d,"i":%d,"r":%d}`, g, i, r))
				}
				id := fmt.Sprintf("g%d-%d", g, i)
				if r := ts.firehoseAsAdmin(id, firehoseBody(id, data...)); r.status != 200 {
					done = true
					errs <- fmt.Errorf("%s: %d %s", id, r.status, r.body)
					return
				}
			}
			done = true
			errs <- nil
		}()
	}
	for range senders {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got := ts.rowsOf("['fh'] | summarize n = count() by g, i", "g", "i", "n")
	if len(got) != senders*perSender {
		t.Fatalf("%d (g, i) groups, want %d: %q", len(got), senders*perSender, got)
	}
	for _, row := range got {
		if !strings.HasSuffix(row, fmt.Sprintf(",n=%d", records)) {
			t.Errorf("group %s, want %d records each", row, records)
		}
	}
}

// firehoseAsAdmin posts a delivery with the admin's token.
func (ts *testServer) firehoseAsAdmin(id string, body any) resp {
	return ts.do(req{method: "POST", path: "/v1/ingest/fh/firehose", body: body,
		headers: map[string]string{"X-Amz-Firehose-Request-Id": id}})
}
