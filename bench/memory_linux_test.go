package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/seaweedtest"
)

// BenchmarkMemory reports the server's resident memory while it ingests
// the realistic shape over HTTP and while it answers the seven reference
// queries, with the bounds a user sets on `aplite serve` (-flush-rows,
// -column-cache, -result-cache, -query-memory, -max-body). The server is
// a child process, so the figures are its own: the peak of VmRSS sampled
// every 20 ms, and VmHWM. VmRSS counts the pages of the memory-mapped
// block files a query touched (RssFile: page cache the kernel reclaims
// under pressure, shared with every reader of the file) beside the heap
// (RssAnon), so the peak of RssAnon is reported too. Sizes as BenchmarkQuery (APLITE_BENCH_10M=1
// adds 10M); APLITE_MEMORY_FLAGS adds serve flags, e.g.
// "-column-cache 256M".
func BenchmarkMemory(b *testing.B) {
	bin := buildAplite(b)
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			for b.Loop() {
				measureMemory(b, bin, n)
			}
		})
	}
}

func measureMemory(b *testing.B, bin string, n int) {
	args := strings.Fields(os.Getenv("APLITE_MEMORY_FLAGS"))
	p := startProc(b, bin, os.Environ(), filepath.Join(b.TempDir(), "data"), seaweedtest.FreeAddr(b), args...)
	defer p.cmd.Process.Kill()
	s := newRSSSampler(p.cmd.Process.Pid)
	defer s.stop()
	p.post(b, "/v2/datasets", []byte(`{"name":"`+queryDataset+`"}`))

	g := newGen(1, n)
	per := eventsPer(4 << 20)
	began := time.Now()
	var sent int64
	for done := 0; done < n; done += per {
		k := min(per, n-done)
		body := g.AppendNDJSON(make([]byte, 0, 4<<20+4096), k)
		sent += int64(len(body))
		p.post(b, "/v1/datasets/"+queryDataset+"/ingest", body)
	}
	ingest := time.Since(began)
	ingestPeak := s.peakAndReset()
	p.waitCount(b, n)
	settlePeak := s.peakAndReset()
	s.anonPeakAndReset()

	var queryPeak int64
	for _, q := range benchQueries {
		body, _ := json.Marshal(map[string]string{"apl": q.apl()})
		for range 3 {
			p.post(b, "/v1/datasets/_apl?format=tabular", body)
		}
		anon := s.anonPeakAndReset()
		peak := s.peakAndReset()
		b.ReportMetric(mb(peak), q.id+"-peak-rss-MB")
		b.ReportMetric(mb(anon), q.id+"-peak-anon-MB")
		queryPeak = max(queryPeak, peak)
	}
	b.ReportMetric(float64(n)/ingest.Seconds(), "ingest-events/s")
	b.ReportMetric(float64(sent)/ingest.Seconds()/1e6, "ingest-MB/s")
	b.ReportMetric(mb(ingestPeak), "ingest-peak-rss-MB")
	b.ReportMetric(mb(settlePeak), "settle-peak-rss-MB")
	b.ReportMetric(mb(queryPeak), "query-peak-rss-MB")
	b.ReportMetric(mb(s.hwm()), "vmhwm-MB")
	b.SetBytes(sent)
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// rssSampler polls a process's VmRSS and RssAnon and keeps their peaks
// since the last reset (VmHWM cannot be reset without privileges on every
// kernel).
type rssSampler struct {
	pid        int
	peak, anon atomic.Int64
	done       chan struct{}
	wg         sync.WaitGroup
}

func newRSSSampler(pid int) *rssSampler {
	s := &rssSampler{pid: pid, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if v := procStatus(pid, "VmRSS"); v > s.peak.Load() {
				s.peak.Store(v)
			}
			if v := procStatus(pid, "RssAnon"); v > s.anon.Load() {
				s.anon.Store(v)
			}
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) peakAndReset() int64 { return s.peak.Swap(procStatus(s.pid, "VmRSS")) }
func (s *rssSampler) anonPeakAndReset() int64 {
	return s.anon.Swap(procStatus(s.pid, "RssAnon"))
}
func (s *rssSampler) hwm() int64 { return procStatus(s.pid, "VmHWM") }
func (s *rssSampler) stop()      { close(s.done); s.wg.Wait() }

// procStatus reads one "kB" line of /proc/PID/status, in bytes.
func procStatus(pid int, key string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != key {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return kb << 10
	}
	return 0
}
