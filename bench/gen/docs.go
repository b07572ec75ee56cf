package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"
)

// The datasets of Axiom's documentation (shared/spec/apl.md §4), with the
// field names and types its example queries use, so that every documented
// query can run on aplite (internal/docsquery, issue 14). They are test
// data, not benchmark data: a few thousand events each, spread over
// DocsDays days before DocsNow so that the docs' ago(…) filters find
// events.

// DocsNow is the clock the documented queries run at: the end of the
// generated data.
var DocsNow = Day0.Add(DocsDays * 24 * time.Hour)

// DocsDays is how many days the docs datasets span.
const DocsDays = 7

// DocsDataset is one dataset of the documentation's examples.
type DocsDataset struct {
	// Name is the dataset name the queries use, e.g. "sample-http-logs".
	Name string
	// MapFields are the fields Axiom stores as map fields (objects kept
	// whole, queried with ['field']['key']); the loader must declare them
	// (ingest.Options.MapFields).
	MapFields []string
	// Timespans are the fields that are timespans in Axiom (a span's
	// duration, typed by the OTLP ingest). NDJSON has no timespan type,
	// so they are written as Go duration strings ("1.5ms") and the
	// loader must convert them (time.ParseDuration).
	Timespans []string
	// event draws one event at time t.
	event func(r *rand.Rand, t time.Time) map[string]any
	// events draws a whole set at once, for datasets made of groups of
	// events (the spans of a trace); nil uses event.
	events func(seed int64, n int) []map[string]any
}

// DocsDatasets lists the documentation's datasets: sample-http-logs,
// otel-demo-traces and its companions, the GitHub event datasets, the AI
// datasets, axiom-audit, the app integrations' datasets and the datasets
// named by placeholders (['dataset'], ['myDataset'], …).
func DocsDatasets() []DocsDataset {
	return append([]DocsDataset{
		{Name: "sample-http-logs", MapFields: httpExampleMaps, events: docsHTTP},
		// The union examples read these two as datasets of the same shape.
		{Name: "http-logs", MapFields: httpExampleMaps, events: docsHTTP},
		{Name: "security-logs", MapFields: httpExampleMaps, events: docsHTTP},
		{Name: "otel-demo-traces", MapFields: []string{"attributes.custom"}, Timespans: []string{"duration"}, events: docsTraces(0)},
		{Name: "otel-backend-traces", MapFields: []string{"attributes.custom"}, Timespans: []string{"duration"}, events: docsTraces(1)},
		{Name: "otel-demo-logs", events: docsOtelLogs},
		// The performance page's logs carry a JSON payload as a string.
		{Name: "logs", MapFields: []string{"json_payload"}, event: jsonPayloadLog},
		// Hacker News items, the tutorial's dataset for text search.
		{Name: "hn", event: hnItem},
		// Unix timestamps, the dataset of the unixtime_*_todatetime pages.
		{Name: "events", event: epochEvent},
		{Name: "github-push-event", event: ghPush},
		{Name: "github-issues-event", event: ghIssues},
		{Name: "github-pull-request-event", event: ghPull},
		{Name: "github-issue-comment-event", event: ghComment},
		{Name: "ai-logs", event: aiLog},
		{Name: "otel-demo-genai", Timespans: []string{"duration"}, event: genaiSpan},
		{Name: "axiom-audit", event: auditEvent},
		{Name: "convex", event: convexEvent},
		{Name: "vercel", event: vercelEvent},
		{Name: "segment-frontend-prod", event: segmentEventOf},
	}, placeholderDatasets()...)
}

// Variant says how tidy a docs dataset's events are.
type Variant string

const (
	// DocsTidy writes every field of every event with its type.
	DocsTidy Variant = "tidy"
	// DocsMessy drops about 30% of the fields of each event (any field
	// but _time, nested ones too) and writes about 10% of the numbers
	// left as strings ("200" for 200): what real shippers send, and
	// what a documented query must survive without an error.
	DocsMessy Variant = "messy"
)

// NDJSON returns n events of the dataset, deterministic per seed, in the
// given variant, one JSON object a line.
func (d DocsDataset) NDJSON(seed int64, n int, v Variant) []byte {
	var evs []map[string]any
	if d.events != nil {
		evs = d.events(seed, n)
	} else {
		r := rand.New(rand.NewPCG(uint64(seed), docsStream(d.Name)))
		span := int64(DocsDays * 24 * time.Hour)
		for i := range n {
			t := Day0.Add(time.Duration((int64(i)*span + r.Int64N(span/int64(n)+1)) / int64(n)))
			evs = append(evs, d.event(r, t.Truncate(time.Microsecond)))
		}
	}
	var m *rand.Rand
	seen := map[string]bool{}
	if v == DocsMessy {
		m = rand.New(rand.NewPCG(uint64(seed), docsStream(d.Name)^0x6d65737379))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range evs {
		if m != nil {
			mess(m, e, "", seen)
		}
		if err := enc.Encode(e); err != nil {
			panic(fmt.Sprintf("gen: %s event is not JSON: %v", d.Name, err))
		}
	}
	return buf.Bytes()
}

// docsStream is the second PCG word of a dataset's stream, so datasets
// drawn with the same seed differ.
func docsStream(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(name) {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h
}

// mess drops about 30% of e's fields (leaves: nested objects are
// flattened into dotted fields) and turns about 10% of its numbers
// into strings, recursively into nested objects (not into arrays, whose
// elements are values rather than fields). Three things stay, so that
// the messy data tests the engine rather than the generator: _time
// (Axiom fills a missing one with the ingest time, piling events up at
// one instant); the first occurrence of each field (seen, by dotted
// path), so the dataset has every field the tidy one has and a query
// naming a rare field does not fail for want of it; and no object is
// left empty (an empty object would become a field of its own).
func mess(r *rand.Rand, e map[string]any, prefix string, seen map[string]bool) {
	for _, k := range sortedKeys(e) {
		v := e[k]
		path := prefix + k
		if path == "_time" {
			continue
		}
		if x, ok := v.(map[string]any); ok {
			// An object is not a field (ingest flattens it into its
			// leaves): drop its leaves, not the whole subtree.
			mess(r, x, path+".", seen)
			if len(x) == 0 {
				delete(e, k)
			}
			continue
		}
		first := !seen[path]
		seen[path] = true
		if !first && r.Float64() < 0.3 {
			delete(e, k)
			continue
		}
		switch x := v.(type) {
		case int64:
			if r.Float64() < 0.1 {
				e[k] = strconv.FormatInt(x, 10)
			}
		case float64:
			if r.Float64() < 0.1 {
				e[k] = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}
	}
}

// sortedKeys returns m's keys in order, so draws do not follow Go's
// random map order and the output stays a function of the seed.
func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
