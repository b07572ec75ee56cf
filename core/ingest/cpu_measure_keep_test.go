//go:build cpumeasure && !js

package ingest

import (
	"runtime"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// TestCPUThroughputKeep is TestCPUThroughput for the projected decodes of
// `aplite query -in` (the keep sets of the issue 16 queries q5, q1 and
// dc-method) on the generator's real shape: CPU time per byte on one P,
// which holds still on a shared machine where wall time swings.
func TestCPUThroughputKeep(t *testing.T) {
	runtime.GOMAXPROCS(1)
	body := realBody(20000)
	for _, c := range []struct {
		name string
		keep []string
	}{
		{"keep-uri", []string{"uri"}},
		{"keep-status", []string{"status"}},
		{"keep-dc-method", []string{"server_datacenter", "method", "req_duration_ms"}},
	} {
		o := Options{Format: NDJSON, Now: testNow, Keep: keepOnly(c.keep...)}
		run := func() {
			if _, err := Decode(body, o, store.NewRowsBuilder()); err != nil {
				t.Fatal(err)
			}
		}
		run()
		runtime.GC()
		c0 := cpuNow()
		n := 0
		for cpuNow()-c0 < 3*time.Second {
			run()
			n++
		}
		cpu := cpuNow() - c0
		t.Logf("%-15s %6.1f MB/cpu-s", c.name, float64(n*len(body))/cpu.Seconds()/1e6)
	}
}
