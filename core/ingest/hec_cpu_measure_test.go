//go:build cpumeasure && !js

package ingest

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// TestHECCPUCost holds the HEC door's decode (DecodeHEC, and the general
// path it falls back to) to plain NDJSON's on the same events, in CPU
// time on one P (GC included), alternating them so a busy machine weighs
// on all alike:
//
//	go test -tags cpumeasure -run HECCPUCost -v ./core/ingest
func TestHECCPUCost(t *testing.T) {
	runtime.GOMAXPROCS(1)
	nd := accessLogs(benchEvents, 1)
	var hec []byte
	for _, line := range bytes.Split(bytes.TrimSpace(nd), []byte{'\n'}) {
		hec = append(append(append(hec, `{"event":`...), line...), "}\n"...)
	}
	var buf []byte
	decode := func(body []byte) {
		rb := store.NewRowsBuilder()
		if res, err := Decode(body, Options{Format: NDJSON, Now: testNow}, rb); err != nil || res.Failed != 0 {
			t.Fatal(err, res.Failures)
		}
		rb.Finish(testNow)
	}
	ways := []struct {
		name string
		f    func()
	}{
		{"ndjson", func() { decode(nd) }},
		{"hec", func() {
			rb := store.NewRowsBuilder()
			if _, res, err := DecodeHEC(hec, Options{Now: testNow}, rb); err != nil || res.Failed != 0 {
				t.Fatal(err, res.Failures)
			}
			rb.Finish(testNow)
		}},
		{"general", func() {
			out, _, err := HECEvents(buf[:0], hec)
			if err != nil {
				t.Fatal(err)
			}
			buf = out
			decode(out)
		}},
	}
	var cpu [3]time.Duration
	var runs [3]int
	for round := 0; round < 10; round++ {
		for i, w := range ways {
			runtime.GC()
			c0 := cpuNow()
			for k := 0; k < 10; k++ {
				w.f()
			}
			cpu[i] += cpuNow() - c0
			runs[i] += 10
		}
	}
	for i, w := range ways {
		per := cpu[i] / time.Duration(runs[i])
		t.Logf("%-6s %7.2f ms/body  %8.0f events/cpu-s", w.name, per.Seconds()*1e3, benchEvents/per.Seconds())
	}
	for i, w := range ways[1:] {
		t.Logf("%s costs %+.1f%% over ndjson", w.name, (float64(cpu[i+1])/float64(runs[i+1]))/(float64(cpu[0])/float64(runs[0]))*100-100)
	}
}
