package gen

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/netip"
	"testing"
	"time"
)

// countLeaves counts the fields of an event as ingest flattens them: the
// leaves of nested objects.
func countLeaves(m map[string]any) (fields int) {
	for _, v := range m {
		if o, ok := v.(map[string]any); ok {
			fields += countLeaves(o)
		} else {
			fields++
		}
	}
	return fields
}

func TestDocsDatasets(t *testing.T) {
	const n = 400
	for _, d := range DocsDatasets() {
		tidy := d.NDJSON(3, n, DocsTidy)
		if !bytes.Equal(tidy, d.NDJSON(3, n, DocsTidy)) {
			t.Errorf("%s: not deterministic per seed", d.Name)
		}
		messy := d.NDJSON(3, n, DocsMessy)
		tl, ml := bytes.Split(bytes.TrimSpace(tidy), []byte("\n")), bytes.Split(bytes.TrimSpace(messy), []byte("\n"))
		if len(tl) != n || len(ml) != n {
			t.Fatalf("%s: %d tidy and %d messy lines, want %d", d.Name, len(tl), len(ml), n)
		}
		var tf, mf int
		for i := range tl {
			var te, me map[string]any
			if err := json.Unmarshal(tl[i], &te); err != nil {
				t.Fatalf("%s line %d: %v", d.Name, i+1, err)
			}
			if err := json.Unmarshal(ml[i], &me); err != nil {
				t.Fatalf("%s messy line %d: %v", d.Name, i+1, err)
			}
			if te["_time"] != me["_time"] || te["_time"] == nil {
				t.Fatalf("%s line %d: _time %v / %v", d.Name, i+1, te["_time"], me["_time"])
			}
			// _time always stays: count the other fields, or a dataset
			// of one or two fields (the placeholder datasets) would seem
			// to lose far fewer than 30%.
			tf += countLeaves(te) - 1
			mf += countLeaves(me) - 1
		}
		// About 30% of the fields go (a little fewer: first
		// occurrences stay).
		if drop := 1 - float64(mf)/float64(tf); drop < 0.2 || drop > 0.35 {
			t.Errorf("%s: the messy variant drops %.0f%% of the fields, want about 30%%", d.Name, 100*drop)
		}
	}
}

// The docs' queries compare sample-http-logs' status as a string and
// read otel-demo-traces' duration as a timespan (Go duration text).
func TestDocsFieldTypes(t *testing.T) {
	byName := map[string]DocsDataset{}
	for _, d := range DocsDatasets() {
		byName[d.Name] = d
	}
	var e map[string]any
	line := bytes.SplitN(byName["sample-http-logs"].NDJSON(1, 10, DocsTidy), []byte("\n"), 2)[0]
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatal(err)
	}
	if _, ok := e["status"].(string); !ok {
		t.Errorf("sample-http-logs status is %T, want a string", e["status"])
	}
	for _, f := range []string{"resp_body_size_bytes", "resp_header_size_bytes", "req_duration_ms"} {
		if _, ok := e[f].(float64); !ok {
			t.Errorf("sample-http-logs %s is %T, want a number", f, e[f])
		}
	}
	line = bytes.SplitN(byName["otel-demo-traces"].NDJSON(1, 10, DocsTidy), []byte("\n"), 2)[0]
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatal(err)
	}
	if d := byName["otel-demo-traces"]; len(d.Timespans) != 1 || d.Timespans[0] != "duration" {
		t.Errorf("otel-demo-traces Timespans = %v", d.Timespans)
	}
	if _, ok := e["attributes"].(map[string]any)["custom"].(map[string]any); !ok {
		t.Errorf("otel-demo-traces attributes.custom is %T, want an object", e["attributes"].(map[string]any)["custom"])
	}
}

// The fields added for documentation examples hold valid input for the
// functions the examples call on them: without that the examples would
// run, but only on nulls and errors turned into nulls.
func TestDocsExampleFields(t *testing.T) {
	byName := map[string]DocsDataset{}
	for _, d := range DocsDatasets() {
		byName[d.Name] = d
	}
	for _, line := range bytes.Split(bytes.TrimSpace(byName["sample-http-logs"].NDJSON(1, 200, DocsTidy)), []byte("\n")) {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		if a := e["angle_rad"].(float64); a < 0 || a > 2*math.Pi {
			t.Errorf("angle_rad %v is not an angle in radians", a)
		}
		if x := e["normalized_rate"].(float64); x < 0 || x > 1 {
			t.Errorf("normalized_rate %v is outside acos's domain", x)
		}
		for _, f := range []string{"client_ip", "ip_address", "ip1", "ip2"} {
			if ip, err := netip.ParseAddr(e[f].(string)); err != nil || !ip.Is4() {
				t.Errorf("%s %q is not an IPv4 address", f, e[f])
			}
		}
		if ip, err := netip.ParseAddr(e["src_ip"].(string)); err != nil || !ip.Is6() {
			t.Errorf("src_ip %q is not an IPv6 address", e["src_ip"])
		}
		var j struct{ Field struct{ Name string } }
		if err := json.Unmarshal([]byte(e["json_field"].(string)), &j); err != nil || j.Field.Name == "" {
			t.Errorf("json_field %q has no field.name", e["json_field"])
		}
		if _, err := base64.StdEncoding.DecodeString(e["field_name"].(string)); err != nil {
			t.Errorf("field_name %q is not base64", e["field_name"])
		}
		ts, _ := time.Parse(time.RFC3339Nano, e["_time"].(string))
		if ms := int64(e["epoch_ms"].(float64)); ms != ts.UnixMilli() {
			t.Errorf("epoch_ms %d is not _time %s", ms, e["_time"])
		}
	}
	for _, name := range []string{"dataset", "dataset.name", "myDataset", "my-dataset", "sample_dataset",
		"my_traces", "DATASET_NAME", "accessLogs", "HttpRequestLogs", "PodLogs"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("no placeholder dataset %s", name)
		}
	}
}
