//go:build cpumeasure && !js

// On a machine shared with other work, wall-clock benchmarks swing by 3x;
// CPU time per byte does not. Run with
//
//	go test -tags cpumeasure -run CPUThroughput -v ./core/ingest
//
// to get single-core MB per CPU-second (GC included) of Decode and of
// sonic decoding the same NDJSON into maps.

package ingest

import (
	"bytes"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/bytedance/sonic"
)

// cpuNow is the process CPU time (user + system).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCPUThroughput measures on one P, so CPU time is the decoder's own.
func TestCPUThroughput(t *testing.T) {
	runtime.GOMAXPROCS(1)
	body := accessLogs(benchEvents, 1)
	measure := func(name string, body []byte, f func()) {
		f()
		runtime.GC()
		c0, w0 := cpuNow(), time.Now()
		n := 0
		for cpuNow()-c0 < 3*time.Second {
			f()
			n++
		}
		c := cpuNow() - c0
		events := bytes.Count(body, []byte("\n"))
		t.Logf("%-10s %6.1f MB/cpu-s %6.2f µs/event (%6.1f MB/wall-s)", name, float64(n*len(body))/c.Seconds()/1e6,
			c.Seconds()/float64(n*events)*1e6, float64(n*len(body))/time.Since(w0).Seconds()/1e6)
	}
	measure("decode", body, func() {
		rb := store.NewRowsBuilder()
		if _, err := Decode(body, Options{Format: NDJSON, Now: testNow}, rb); err != nil {
			t.Fatal(err)
		}
	})
	g := genBody()
	measure("gen", g, func() {
		rb := store.NewRowsBuilder()
		if _, err := Decode(g, Options{Format: NDJSON, Now: testNow}, rb); err != nil {
			t.Fatal(err)
		}
	})
	wide := wideLogs(benchEvents)
	measure("wide", wide, func() {
		rb := store.NewRowsBuilder()
		if _, err := Decode(wide, Options{Format: NDJSON, Now: testNow}, rb); err != nil {
			t.Fatal(err)
		}
	})
	lines := splitLines(body)
	measure("sonic-map", body, func() {
		for _, l := range lines {
			var m map[string]any
			sonic.Unmarshal(l, &m)
		}
	})
}

// splitLines splits NDJSON into lines.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}
