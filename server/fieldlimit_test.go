package server

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/aplite/aplite/server/meta"
)

// The license's maxFields caps a dataset's distinct fields as Axiom does:
// an event that would add fields past it is refused and listed in the
// answer's failures with the fields and the limit; the other events of
// the request are stored, and the refused fields never reach the schema.
func TestIngestFieldLimit(t *testing.T) {
	ts := newTestServer(t)
	ts.setLicense(func(l *meta.License) { l.MaxFields = 5 })
	ts.createDataset("wide")
	var st ingestStatus
	ts.must(req{method: "POST", path: "/v1/datasets/wide/ingest", body: `[{"a":1,"b":2,"c":3}]`, contentType: "application/json"}, 200).json(t, &st)
	if st.Ingested != 1 || st.Failed != 0 {
		t.Fatalf("under the limit: %+v", st)
	}
	body := `{"d":1,"e":2}
{"f":1,"g":2,"h":3,"i":4,"j":5}
{"a":5,"b":null}
{"d":7}
{"k":1}`
	ts.must(req{method: "POST", path: "/v1/datasets/wide/ingest", body: body, contentType: "application/x-ndjson"}, 200).json(t, &st)
	if st.Ingested != 3 || st.Failed != 2 || len(st.Failures) != 2 {
		t.Fatalf("past the limit: %+v", st)
	}
	for _, want := range []string{`"f", "g", "h" and 2 more`, "limit of 5 fields", "maxFields"} {
		if !strings.Contains(st.Failures[0].Error, want) {
			t.Errorf("failure %q does not say %q", st.Failures[0].Error, want)
		}
	}
	if !strings.Contains(st.Failures[1].Error, `"k"`) {
		t.Errorf("second failure %q does not name k", st.Failures[1].Error)
	}
	var fields []struct{ Name string }
	ts.must(req{method: "GET", path: "/v2/datasets/wide/fields"}, 200).json(t, &fields)
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "a,b,c,d,e" {
		t.Errorf("fields %v, want a..e", names)
	}
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "wide | count"}}, 200).json(t, &res)
	if c := res.Tables[0].Columns; c[0][0] != float64(4) {
		t.Errorf("count %v, want the 4 stored events", c)
	}
}

// An OTLP export whose spans are refused by the field limit says so in
// the answer's partial_success, in the request's encoding.
func TestOTLPFieldLimitPartialSuccess(t *testing.T) {
	ts := newTestServer(t)
	ts.setLicense(func(l *meta.License) { l.MaxFields = 3 })
	ts.createDataset("traces")
	hdr := map[string]string{"X-Axiom-Dataset": "traces"}
	r := ts.do(req{method: "POST", path: "/v1/traces", body: otlpJSON(t, sampleTraces()), contentType: "application/json", headers: hdr})
	var ans struct {
		PartialSuccess struct {
			RejectedSpans string `json:"rejectedSpans"`
			ErrorMessage  string `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if err := json.Unmarshal(r.body, &ans); r.status != 200 || err != nil || ans.PartialSuccess.RejectedSpans != "2" ||
		!strings.Contains(ans.PartialSuccess.ErrorMessage, "limit of 3 fields") {
		t.Fatalf("json export: %d %s", r.status, r.body)
	}
	pb, _ := proto.Marshal(sampleTraces())
	r = ts.do(req{method: "POST", path: "/v1/traces", body: pb, contentType: "application/x-protobuf", headers: hdr})
	if r.status != 200 {
		t.Fatalf("protobuf export: %d %q", r.status, r.body)
	}
	n, msg := partialSuccess(t, r.body)
	if n != 2 || !strings.Contains(msg, "limit of 3 fields") {
		t.Errorf("protobuf partial success: %d rejected, %q", n, msg)
	}
}

// partialSuccess reads an Export*ServiceResponse: field 1 holds the
// rejected count (1) and the error message (2).
func partialSuccess(t *testing.T, b []byte) (int, string) {
	t.Helper()
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 || num != 1 || typ != protowire.BytesType {
		t.Fatalf("response %q has no partial_success", b)
	}
	ps, m := protowire.ConsumeBytes(b[n:])
	if m < 0 {
		t.Fatalf("response %q: bad partial_success", b)
	}
	var rejected int
	var msg string
	for len(ps) > 0 {
		num, typ, n := protowire.ConsumeTag(ps)
		ps = ps[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, k := protowire.ConsumeVarint(ps)
			rejected, ps = int(v), ps[k:]
		case num == 2 && typ == protowire.BytesType:
			v, k := protowire.ConsumeBytes(ps)
			msg, ps = string(v), ps[k:]
		default:
			t.Fatalf("unexpected field %d in %q", num, b)
		}
	}
	return rejected, msg
}
