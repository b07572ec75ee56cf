package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// accessLogs returns n seeded HTTP access-log events as NDJSON, about 370
// bytes each: the event shape of the ingest benchmarks (the shared
// generator in bench/ is the one end-to-end benchmarks use; this one keeps
// the package self-contained).
func accessLogs(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	methods := []string{"GET", "GET", "GET", "POST", "PUT", "DELETE", "PATCH"}
	paths := []string{"/api/v1/users", "/api/v1/orders", "/api/v2/products", "/static/js/app", "/login", "/api/v1/cart/items"}
	agents := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
		"curl/8.7.1", "Go-http-client/2.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
	}
	geos := [][2]string{{"Berlin", "Germany"}, {"Paris", "France"}, {"New York", "United States"}, {"Tokyo", "Japan"},
		{"São Paulo", "Brazil"}, {"Lagos", "Nigeria"}, {"Sydney", "Australia"}, {"Toronto", "Canada"}}
	dcs := []string{"DE-FRA1", "US-IAD2", "JP-NRT1", "BR-GRU1", "AU-SYD1"}
	statuses := []int{200, 200, 200, 200, 201, 204, 301, 304, 400, 404, 500, 503}
	start := time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		t := start.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
		g := geos[r.IntN(len(geos))]
		fmt.Fprintf(&buf, `{"_time":"%s","method":"%s","uri":"%s/%d","status":%d,"req_duration_ms":%.3f,`+
			`"resp_body_size":%d,"user_agent":"%s","geo":{"city":"%s","country":"%s"},"server_datacenter":"%s",`+
			`"is_tls":%t,"id":"%016x%016x"}`+"\n",
			t.Format(time.RFC3339Nano), methods[r.IntN(len(methods))], paths[r.IntN(len(paths))], r.IntN(50000),
			statuses[r.IntN(len(statuses))], math.Exp(r.NormFloat64()*1.2+3), r.IntN(200000),
			agents[r.IntN(len(agents))], g[0], g[1], dcs[r.IntN(len(dcs))], r.IntN(4) != 0, r.Uint64(), r.Uint64())
	}
	return buf.Bytes()
}

const benchEvents = 10000

// benchDecode measures Decode of body into a fresh builder per iteration.
func benchDecode(b *testing.B, body []byte, o Options) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	o.Now = testNow
	var events int
	for b.Loop() {
		rb := store.NewRowsBuilder()
		res, err := Decode(body, o, rb)
		if err != nil || res.Failed != 0 {
			b.Fatal(err, res.Failures)
		}
		events += res.Ingested
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkDecodeNDJSON(b *testing.B) {
	benchDecode(b, accessLogs(benchEvents, 1), Options{Format: NDJSON})
}

func BenchmarkDecodeJSONArray(b *testing.B) {
	nd := accessLogs(benchEvents, 1)
	body := append([]byte{'['}, bytes.ReplaceAll(bytes.TrimSpace(nd), []byte("\n"), []byte(","))...)
	body = append(body, ']')
	benchDecode(b, body, Options{Format: JSON})
}

func BenchmarkDecodeCSV(b *testing.B) {
	benchDecode(b, accessLogsCSV(benchEvents, 1), Options{Format: CSV})
}

// accessLogsCSV is accessLogs as CSV with a header row.
func accessLogsCSV(n int, seed uint64) []byte {
	var buf bytes.Buffer
	buf.WriteString("_time,method,uri,status,req_duration_ms,resp_body_size,user_agent,geo.city,geo.country,server_datacenter,is_tls,id\n")
	for _, line := range bytes.Split(bytes.TrimSpace(accessLogs(n, seed)), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			panic(err)
		}
		g := m["geo"].(map[string]any)
		fmt.Fprintf(&buf, "%s,%s,%s,%v,%v,%v,\"%s\",%s,%s,%s,%v,%s\n", m["_time"], m["method"], m["uri"], m["status"],
			m["req_duration_ms"], m["resp_body_size"], m["user_agent"], g["city"], g["country"], m["server_datacenter"], m["is_tls"], m["id"])
	}
	return buf.Bytes()
}

// BenchmarkStdlibMapNDJSON is encoding/json decoding into one
// map[string]any per event, before any flattening or column building.
func BenchmarkStdlibMapNDJSON(b *testing.B) {
	benchMap(b, json.Unmarshal)
}

// benchMap measures a decoder of one map per NDJSON line.
func benchMap(b *testing.B, unmarshal func([]byte, any) error) {
	body := accessLogs(benchEvents, 1)
	lines := bytes.Split(bytes.TrimSpace(body), []byte("\n"))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		for _, l := range lines {
			var m map[string]any
			if err := unmarshal(l, &m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(lines)*b.N)/b.Elapsed().Seconds(), "events/s")
}

func TestAccessLogSize(t *testing.T) {
	body := accessLogs(1000, 1)
	per := len(body) / 1000
	if per < 340 || per > 400 {
		t.Fatalf("%d bytes per event, want about 370", per)
	}
}

// BenchmarkDecodeNDJSONSmall is the per-request view: a batch of 1000
// events, what axiom-js and many shippers send at a time.
func BenchmarkDecodeNDJSONSmall(b *testing.B) {
	benchDecode(b, accessLogs(1000, 2), Options{Format: NDJSON})
}

// BenchmarkDecodeNDJSONWide is sparse, wide data (Kubernetes-style labels):
// 300 distinct fields, each event sets 15 of them.
func BenchmarkDecodeNDJSONWide(b *testing.B) {
	benchDecode(b, wideLogs(benchEvents), Options{Format: NDJSON})
}

// wideLogs returns n events of sparse, wide data.
func wideLogs(n int) []byte {
	r := rand.New(rand.NewPCG(3, 3))
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		buf.WriteString(`{"msg":"request served"`)
		for j := 0; j < 14; j++ {
			fmt.Fprintf(&buf, `,"label_%d":"value-%d"`, r.IntN(300), r.IntN(50))
		}
		buf.WriteString("}\n")
	}
	return buf.Bytes()
}
