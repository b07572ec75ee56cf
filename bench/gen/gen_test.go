package gen

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sample is shared by the tests that only read it: 100k events of seed 7
// over one day.
const sampleN = 100_000

var sample = NDJSON(7, sampleN)

func lines(t *testing.T, b []byte) [][]byte {
	t.Helper()
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("NDJSON does not end with a newline")
	}
	return bytes.Split(b[:len(b)-1], []byte{'\n'})
}

// decode reads one line the way an ingest client would: numbers that are
// integers become int64, others float64.
func decode(t *testing.T, line []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("line is not a JSON object: %v\n%s", err, line)
	}
	return normalize(m).(map[string]any)
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

func TestSameSeedSameBytes(t *testing.T) {
	a, b := NDJSON(42, 5000), NDJSON(42, 5000)
	if !bytes.Equal(a, b) {
		t.Fatal("two generators with seed 42 produced different data")
	}
	if c := NDJSON(43, 5000); bytes.Equal(a, c) {
		t.Fatal("seeds 42 and 43 produced the same data")
	}
	// Appending in several calls is the same stream as one call.
	g := New(42).SetEventsPerDay(5000)
	var parts []byte
	for _, n := range []int{1, 999, 4000} {
		parts = g.AppendNDJSON(parts, n)
	}
	if !bytes.Equal(a, parts) {
		t.Fatal("AppendNDJSON in chunks differs from one call")
	}
}

func TestEventMatchesNDJSON(t *testing.T) {
	g := New(9)
	ls := lines(t, NDJSON(9, 2000))
	// NDJSON(seed, n) spreads n events per day; match that setting.
	g.SetEventsPerDay(2000)
	for i, l := range ls {
		want := decode(t, l)
		if got := g.Event(); !reflect.DeepEqual(got, want) {
			t.Fatalf("event %d:\nEvent()  %v\nNDJSON   %v", i, got, want)
		}
	}
}

func TestFieldShapes(t *testing.T) {
	methods := map[string]bool{"GET": true, "POST": true, "PUT": true, "DELETE": true, "HEAD": true, "PATCH": true}
	statuses := map[int64]bool{}
	for _, c := range statusCodes {
		statuses[int64(c)] = true
	}
	end := Day0.Add(24 * time.Hour)
	for i, l := range lines(t, sample)[:20000] {
		m := decode(t, l)
		ts, err := time.Parse(time.RFC3339Nano, m["_time"].(string))
		if err != nil || ts.Before(Day0) || !ts.Before(end) {
			t.Fatalf("event %d: _time %v outside the day (%v)", i, m["_time"], err)
		}
		if id := m["id"].(string); len(id) != 32 || strings.Trim(id, hexDigits) != "" {
			t.Fatalf("event %d: id %q is not 32 hex digits", i, id)
		}
		if !methods[m["method"].(string)] {
			t.Fatalf("event %d: method %v", i, m["method"])
		}
		if !strings.HasPrefix(m["uri"].(string), "/") {
			t.Fatalf("event %d: uri %v", i, m["uri"])
		}
		if s, ok := m["status"].(int64); !ok || !statuses[s] {
			t.Fatalf("event %d: status %#v", i, m["status"])
		}
		if d, ok := m["req_duration_ms"].(float64); !ok || d <= 0 || math.IsInf(d, 0) {
			t.Fatalf("event %d: req_duration_ms %#v is not a positive float", i, m["req_duration_ms"])
		}
		if s, ok := m["resp_body_size"].(int64); !ok || s < 0 {
			t.Fatalf("event %d: resp_body_size %#v", i, m["resp_body_size"])
		}
		if _, ok := m["is_tls"].(bool); !ok {
			t.Fatalf("event %d: is_tls %#v", i, m["is_tls"])
		}
		if dc := m["server_datacenter"].(string); len(dc) != 3 || strings.ToUpper(dc) != dc {
			t.Fatalf("event %d: server_datacenter %q", i, dc)
		}
		if g, ok := m["geo"]; ok {
			if _, ok := g.(map[string]any)["country"].(string); !ok {
				t.Fatalf("event %d: geo without a country: %v", i, g)
			}
		}
		if len(m) < 10 || len(m) > 11 {
			t.Fatalf("event %d has %d fields: %v", i, len(m), m)
		}
	}
}

// logLine is the typed form of a line, cheaper to decode than a map.
type logLine struct {
	Time   time.Time `json:"_time"`
	Method string    `json:"method"`
	URI    string    `json:"uri"`
	Status int       `json:"status"`
	Geo    *struct {
		City    *string `json:"city"`
		Country string  `json:"country"`
	} `json:"geo"`
	DC string `json:"server_datacenter"`
}

// TestDistributions checks the properties the benchmarks rely on: a
// realistic mix (GET and 200 dominant), tens of thousands of URIs, some
// with "api", geo sometimes missing, _time roughly ordered.
func TestDistributions(t *testing.T) {
	var (
		n, get, ok200, api, noGeo, late, s500 int
		uris                                  = map[string]bool{}
		cities, countriesSeen, dcs            = map[string]bool{}, map[string]bool{}, map[string]bool{}
		prev                                  time.Time
	)
	for _, l := range lines(t, sample) {
		var m logLine
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		n++
		if m.Method == "GET" {
			get++
		}
		switch m.Status {
		case 200:
			ok200++
		case 500:
			s500++
		}
		uris[m.URI] = true
		if strings.Contains(m.URI, "api") {
			api++
		}
		if m.Geo != nil {
			countriesSeen[m.Geo.Country] = true
			if m.Geo.City != nil {
				cities[*m.Geo.City] = true
			}
		} else {
			noGeo++
		}
		dcs[m.DC] = true
		if m.Time.Before(prev) {
			late++
		}
		prev = m.Time
	}
	share := func(k int) float64 { return float64(k) / float64(n) }
	checks := []struct {
		what   string
		got    float64
		lo, hi float64
	}{
		{"GET share", share(get), 0.5, 0.9},
		{"200 share", share(ok200), 0.6, 0.85},
		{"500 share", share(s500), 0.005, 0.03},
		{"uri containing api", share(api), 0.2, 0.8},
		{"distinct uris seen", float64(len(uris)), 10000, 45000},
		{"uri universe", float64(len(sharedTables().uris)), 30000, 60000},
		{"events without geo", share(noGeo), 0.01, 0.06},
		{"out-of-order _time", share(late), 0.005, 0.06},
		{"countries", float64(len(countriesSeen)), 40, 60},
		{"cities", float64(len(cities)), 200, 400},
		{"datacenters", float64(len(dcs)), 8, 12},
	}
	for _, c := range checks {
		t.Logf("%-20s %.4g", c.what, c.got)
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s = %.4g, want in [%g, %g]", c.what, c.got, c.lo, c.hi)
		}
	}
}

func TestAverageSize(t *testing.T) {
	avg := float64(len(sample)) / sampleN
	t.Logf("average NDJSON event: %.1f bytes", avg)
	if avg < 350 || avg > 390 {
		t.Errorf("average event is %.1f bytes, want about 370", avg)
	}
}

func TestEventsPerDaySpansTheDay(t *testing.T) {
	g := New(3).SetEventsPerDay(1000)
	first, _ := time.Parse(time.RFC3339Nano, g.Event()["_time"].(string))
	var last time.Time
	for range 998 {
		last, _ = time.Parse(time.RFC3339Nano, g.Event()["_time"].(string))
	}
	if first.Sub(Day0) > 10*time.Minute || Day0.Add(24*time.Hour).Sub(last) > 30*time.Minute {
		t.Fatalf("1000 events at 1000/day span %v .. %v, want the whole of %v", first, last, Day0)
	}
	g.Event()
	// Past its events per day the generator carries on into the next day.
	if next, _ := time.Parse(time.RFC3339Nano, g.Event()["_time"].(string)); next.Before(Day0.Add(23 * time.Hour)) {
		t.Fatalf("event 1001 at %v, want on the next day", next)
	}
}

// TestDiurnalCurve checks that the afternoon is busier than the night, so
// time buckets differ.
func TestDiurnalCurve(t *testing.T) {
	var night, afternoon int
	for _, l := range lines(t, sample) {
		i := bytes.Index(l, []byte(`"_time":"`))
		hour := string(l[i+20 : i+22])
		switch hour {
		case "03":
			night++
		case "15":
			afternoon++
		}
	}
	if afternoon < 2*night {
		t.Fatalf("events at 15h: %d, at 03h: %d; want the afternoon at least twice as busy", afternoon, night)
	}
}

func TestQuoteEscapes(t *testing.T) {
	for _, s := range []string{`plain`, `a"b`, `back\slash`, "tab\tnew\nline", "São Paulo", "/search?q=a&page=2"} {
		var back string
		if err := json.Unmarshal([]byte(quote(s)), &back); err != nil || back != s {
			t.Errorf("quote(%q) = %s reads back as %q (%v)", s, quote(s), back, err)
		}
	}
	if q := quote("a&b<c>"); q != `"a&b<c>"` {
		t.Errorf("quote HTML-escaped: %s", q)
	}
}

func BenchmarkAppendNDJSON(b *testing.B) {
	b.ReportAllocs()
	g := New(1)
	buf := g.AppendNDJSON(nil, 1000)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for b.Loop() {
		buf = g.AppendNDJSON(buf[:0], 1000)
	}
}
