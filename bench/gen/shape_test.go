package gen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// realSample is 100k events of the realistic shape, seed 7 (the same base
// events as sample).
var realSample = NDJSONWith(7, sampleN, Real)

func TestParseShape(t *testing.T) {
	for in, want := range map[string]Shape{"": Real, "real": Real, "tidy": Tidy, "wide": Wide} {
		if got, err := ParseShape(in); err != nil || got != want {
			t.Errorf("ParseShape(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseShape("Tidy"); err == nil || !strings.Contains(err.Error(), `"Tidy"`) {
		t.Errorf("ParseShape(Tidy) error %v does not name the shape", err)
	}
}

// The base fields of every shape are the same events, so the reference
// queries have the same answers whatever the shape.
func TestShapesShareBaseEvents(t *testing.T) {
	tidy := lines(t, sample)[:5000]
	for _, s := range []Shape{Real, Wide} {
		ls := lines(t, NDJSONWith(7, sampleN, s))
		for i, l := range tidy {
			a, b := decode(t, l), decode(t, ls[i])
			for k, v := range a {
				w := b[k]
				if f, ok := v.(float64); ok {
					if n, isInt := w.(int64); isInt {
						w = float64(n)
					}
					v = f
				}
				if !reflect.DeepEqual(v, w) {
					t.Fatalf("%s event %d: %s is %#v, tidy has %#v", s, i, k, w, v)
				}
			}
		}
	}
}

func TestRealSameSeedSameBytesAndEvents(t *testing.T) {
	if !bytes.Equal(realSample[:1<<20], NDJSONWith(7, sampleN, Real)[:1<<20]) {
		t.Fatal("two Real generators with seed 7 differ")
	}
	g := NewWith(7, Options{Shape: Wide, EventsPerDay: 300})
	for i, l := range lines(t, NDJSONWith(7, 300, Wide)) {
		if got, want := g.Event(), decode(t, l); !reflect.DeepEqual(got, want) {
			t.Fatalf("event %d:\nEvent()  %v\nNDJSON   %v", i, got, want)
		}
	}
}

// TestRealShape checks what the realistic shape promises: whole floats
// without a point, a message with words of known frequency and stack
// traces, fields that come and go, one that changes type, arrays and
// nesting, and high-cardinality strings.
func TestRealShape(t *testing.T) {
	var n, whole, common, rare, stacks, traces, tags, k8s, k8sOutside, upNum, upStr, upLate int
	ips := map[string]bool{}
	for i, l := range lines(t, realSample) {
		m := decode(t, l)
		n++
		if _, ok := m["req_duration_ms"].(int64); ok {
			whole++
			if raw := jsonValue(l, "req_duration_ms"); bytes.ContainsAny(raw, ".eE") {
				t.Fatalf("event %d: whole duration written as %s", i, raw)
			}
		}
		msg, ok := m["message"].(string)
		if !ok || !strings.Contains(msg, "status=") {
			t.Fatalf("event %d: message %#v", i, m["message"])
		}
		words := strings.Fields(msg)
		if contains(words, CommonWord) {
			common++
		}
		if contains(words, RareWord) {
			rare++
		}
		if strings.Contains(msg, "\n\tat ") {
			stacks++
		}
		if _, ok := m["trace_id"]; ok {
			traces++
		}
		if a, ok := m["tags"].([]any); ok && len(a) > 0 {
			tags++
		}
		day := float64(i) / sampleN
		if kube, ok := m["kubernetes"].(map[string]any); ok {
			k8s++
			if day < 0.2 || day >= 0.8 {
				k8sOutside++
			}
			app := kube["pod"].(map[string]any)["labels"].(map[string]any)["app"]
			if _, ok := app.(string); !ok {
				t.Fatalf("event %d: kubernetes.pod.labels.app %#v", i, app)
			}
		}
		switch m["upstream_status"].(type) {
		case int64:
			upNum++
			if day >= 0.5 {
				upLate++
			}
		case string:
			upStr++
			if day < 0.5 {
				upLate++
			}
		}
		ips[m["client_ip"].(string)] = true
	}
	checks := []struct {
		what        string
		got, lo, hi float64
	}{
		{"whole req_duration_ms share", float64(whole) / float64(n), 0.0005, 0.01},
		{"messages with " + CommonWord, float64(common) / float64(n), 0.015, 0.025},
		{"messages with " + RareWord, float64(rare), 0, 10},
		{"stack traces per 1k", float64(stacks) / float64(n) * 1000, 1, 30},
		{"trace_id share", float64(traces) / float64(n), 0.55, 0.65},
		{"tags share", float64(tags) / float64(n), 0.35, 0.45},
		{"kubernetes share", float64(k8s) / float64(n), 0.55, 0.65},
		{"kubernetes outside its hours", float64(k8sOutside), 0, 0},
		{"upstream_status numbers", float64(upNum) / float64(n), 0.1, 0.5},
		{"upstream_status strings", float64(upStr) / float64(n), 0.1, 0.5},
		{"upstream_status of the wrong type for the hour", float64(upLate), 0, 0},
		{"distinct client_ip share", float64(len(ips)) / float64(n), 0.99, 1},
	}
	for _, c := range checks {
		t.Logf("%-48s %.4g", c.what, c.got)
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s = %.4g, want in [%g, %g]", c.what, c.got, c.lo, c.hi)
		}
	}
}

func TestWideShapeHasSparseFields(t *testing.T) {
	fields := map[string]int{}
	const n = 20000
	for _, l := range lines(t, NDJSONWith(3, n, Wide)) {
		for k := range decode(t, l) {
			if strings.HasPrefix(k, "attr_") {
				fields[k]++
			}
		}
	}
	rareFields := 0
	for _, c := range fields {
		if c < n/100 {
			rareFields++
		}
	}
	t.Logf("%d wide fields, %d in under 1%% of events", len(fields), rareFields)
	if len(fields) < 280 || len(fields) > wideFields {
		t.Errorf("%d distinct wide fields, want about %d", len(fields), wideFields)
	}
	if rareFields < 100 {
		t.Errorf("only %d wide fields are sparse (< 1%% of events)", rareFields)
	}
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// jsonValue returns the raw text after "key": up to the next comma or
// closing brace.
func jsonValue(l []byte, key string) []byte {
	k := bytes.Index(l, []byte(`"`+key+`":`))
	v := l[k+len(key)+3:]
	return v[:bytes.IndexAny(v, ",}")+1]
}
