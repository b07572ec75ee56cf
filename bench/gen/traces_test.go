package gen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTracesSameSeedSameSpans(t *testing.T) {
	a := TracesNDJSON(1, 3000)
	if !bytes.Equal(a, TracesNDJSON(1, 3000)) {
		t.Fatal("two trace generators with seed 1 differ")
	}
	if bytes.Equal(a, TracesNDJSON(2, 3000)) {
		t.Fatal("seeds 1 and 2 produced the same spans")
	}
	// Chunks that cut traces in the middle give the same stream.
	g := NewTraces(1)
	var parts []byte
	for _, n := range []int{1, 2, 997, 2000} {
		parts = g.AppendNDJSON(parts, n)
	}
	if !bytes.Equal(a, parts) {
		t.Fatal("AppendNDJSON in chunks differs from one call")
	}
}

func TestTracesEventMatchesNDJSON(t *testing.T) {
	g := NewTraces(4)
	for i, l := range lines(t, TracesNDJSON(4, 3000)) {
		want := decode(t, l)
		if got := g.Event(); !reflect.DeepEqual(got, want) {
			t.Fatalf("span %d:\nEvent()  %v\nNDJSON   %v", i, got, want)
		}
	}
}

// TestTraceStructure checks what trace queries rely on: parents precede
// and enclose their children within one trace, roots have no parent,
// errors propagate to the root, and the demo's services and kinds appear.
func TestTraceStructure(t *testing.T) {
	g := NewTraces(8)
	type seen struct {
		start, end time.Time
		trace      string
		err        bool
	}
	spans := map[string]seen{}
	services, kinds := map[string]bool{}, map[string]bool{}
	var n, roots, errRoots, maxEvents int
	for range 30000 {
		s := g.NextSpan()
		n++
		if len(s.TraceID) != 32 || strings.Trim(s.TraceID, hexDigits) != "" || len(s.SpanID) != 16 || strings.Trim(s.SpanID, hexDigits) != "" {
			t.Fatalf("bad ids %q %q", s.TraceID, s.SpanID)
		}
		if s.Duration <= 0 {
			t.Fatalf("span %s has duration %v", s.SpanID, s.Duration)
		}
		if d, err := time.ParseDuration(s.Duration.String()); err != nil || d != s.Duration {
			t.Fatalf("duration %v does not read back (%v)", s.Duration, err)
		}
		services[s.Service], kinds[s.Kind] = true, true
		maxEvents = max(maxEvents, s.Events)
		if s.ParentSpanID == "" {
			roots++
			if s.Error {
				errRoots++
			}
		} else {
			p, ok := spans[s.ParentSpanID]
			if !ok || p.trace != s.TraceID {
				t.Fatalf("span %s: parent %s not seen earlier in trace %s", s.SpanID, s.ParentSpanID, s.TraceID)
			}
			if s.Start.Before(p.start) || s.Start.Add(s.Duration).After(p.end) {
				t.Fatalf("span %s [%v, +%v] is not inside its parent [%v, %v]", s.SpanID, s.Start, s.Duration, p.start, p.end)
			}
			if s.Error && !p.err {
				t.Fatalf("span %s failed but its parent did not", s.SpanID)
			}
		}
		spans[s.SpanID] = seen{s.Start, s.Start.Add(s.Duration), s.TraceID, s.Error}
	}
	t.Logf("%d spans, %d traces (%.1f spans/trace), %.1f%% failed, %d services, max %d events",
		n, roots, float64(n)/float64(roots), 100*float64(errRoots)/float64(roots), len(services), maxEvents)
	if len(services) < 14 || len(kinds) != 5 {
		t.Errorf("services %v, kinds %v: want the demo's 15 services (loadgenerator optional) and all 5 kinds", services, kinds)
	}
	if share := float64(errRoots) / float64(roots); share < 0.01 || share > 0.06 {
		t.Errorf("%.3f of traces failed, want about 3%%", share)
	}
	if maxEvents < 50 || maxEvents > 401 {
		t.Errorf("largest events array %d, want a chatty span with 50 to 400", maxEvents)
	}
}
