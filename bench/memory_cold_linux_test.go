package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/seaweedtest"
)

// The query-only figures of issue 29: what a server that only answers
// queries holds, and what the first query after a restart pays. Both run
// over one settled data directory, built once (ingest over HTTP,
// compaction waited out) and kept in APLITE_MEMORY_DATA across runs,
// since building 10M events takes minutes; the size is APLITE_MEMORY_EVENTS
// (default 1M). APLITE_MEMORY_FLAGS adds serve flags to every start;
// APLITE_MEMORY_BIN names a built aplite to run instead of this tree's
// (to compare two builds over the same directory); APLITE_MEMORY_MAX_MB
// fails BenchmarkQueryMemory when its peak passes that many MB (make
// memory).

// BenchmarkQueryMemory starts a fresh server over the prepared directory
// and runs each reference query five times (nocache, as the peers
// harness does), sampling VmRSS and RssAnon every 20 ms: the peak over
// all queries is query-peak-rss-MB, and each query's peak and median
// time are reported beside it, so a smaller -column-cache shows what it costs.
func BenchmarkQueryMemory(b *testing.B) {
	bin := memoryBinary(b)
	dir, n := preparedData(b, bin)
	b.Logf("%d events in %s", n, dir)
	for b.Loop() {
		p := startServing(b, bin, dir)
		s := newRSSSampler(p.cmd.Process.Pid)
		start := procStatus(p.cmd.Process.Pid, "VmRSS")
		var peak, anon int64
		for _, q := range benchQueries {
			ts := timeQuery(b, p, q, 5)
			b.ReportMetric(msOf(median(ts)), q.id+"-ms")
			qpeak := s.peakAndReset()
			b.ReportMetric(mb(qpeak), q.id+"-peak-rss-MB")
			peak = max(peak, qpeak)
			anon = max(anon, s.anonPeakAndReset())
		}
		s.stop()
		b.ReportMetric(mb(start), "start-rss-MB")
		b.ReportMetric(mb(peak), "query-peak-rss-MB")
		b.ReportMetric(mb(anon), "query-peak-anon-MB")
		stopServing(b, p)
		checkPeak(b, peak)
	}
}

// checkPeak fails the run when the query-only peak passes
// APLITE_MEMORY_MAX_MB (make memory sets it; unset, nothing is checked).
func checkPeak(b *testing.B, peak int64) {
	v := os.Getenv("APLITE_MEMORY_MAX_MB")
	if v == "" {
		return
	}
	limit, err := strconv.ParseFloat(v, 64)
	if err != nil {
		b.Fatalf("APLITE_MEMORY_MAX_MB: %v", err)
	}
	if mb(peak) > limit {
		b.Errorf("query-only peak %.0f MB of RSS, over APLITE_MEMORY_MAX_MB %.0f", mb(peak), limit)
	}
}

// BenchmarkColdQuery times each reference query as the first one a
// fresh server answers with the data files out of the page cache (as
// after a reboot, or on a node whose cache was evicted), then its warm
// median over four more runs. The page cache is dropped file by file
// (posix_fadvise DONTNEED), which needs no privilege; pages another
// process maps stay, so nothing else may hold the directory open.
func BenchmarkColdQuery(b *testing.B) {
	bin := memoryBinary(b)
	dir, n := preparedData(b, bin)
	b.Logf("%d events in %s", n, dir)
	for b.Loop() {
		for _, q := range benchQueries {
			dropFileCache(b, dir)
			began := time.Now()
			p := startServing(b, bin, dir)
			up := time.Since(began)
			ts := timeQuery(b, p, q, 5)
			b.ReportMetric(msOf(up), q.id+"-start-ms")
			b.ReportMetric(msOf(ts[0]), q.id+"-cold-ms")
			b.ReportMetric(msOf(median(ts[1:])), q.id+"-warm-ms")
			stopServing(b, p)
		}
	}
}

// memoryBinary is APLITE_MEMORY_BIN, or this tree built.
func memoryBinary(b *testing.B) string {
	if bin := os.Getenv("APLITE_MEMORY_BIN"); bin != "" {
		return bin
	}
	return buildAplite(b)
}

// preparedData returns the settled data directory and its event count,
// building it when it is missing or holds another count.
func preparedData(b *testing.B, bin string) (string, int) {
	n := 1_000_000
	if v := os.Getenv("APLITE_MEMORY_EVENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("APLITE_MEMORY_EVENTS: %v", err)
		}
	}
	dir := os.Getenv("APLITE_MEMORY_DATA")
	if dir == "" {
		b.Skip("set APLITE_MEMORY_DATA to a directory the settled dataset is kept in (built on the first run)")
	}
	ready := filepath.Join(dir, fmt.Sprintf("ready-%d", n))
	if _, err := os.Stat(ready); err == nil {
		return filepath.Join(dir, "data"), n
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	p := startProc(b, bin, os.Environ(), data, seaweedtest.FreeAddr(b))
	p.post(b, "/v2/datasets", []byte(`{"name":"`+queryDataset+`"}`))
	g := newGen(1, n)
	per := eventsPer(4 << 20)
	for done := 0; done < n; done += per {
		k := min(per, n-done)
		p.post(b, "/v1/datasets/"+queryDataset+"/ingest", g.AppendNDJSON(make([]byte, 0, 4<<20+4096), k))
	}
	p.waitCount(b, n)
	waitSettled(b, p)
	stopServing(b, p)
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return data, n
}

// waitSettled waits until compaction has left the block count unchanged
// for 10 s (at most 5 minutes).
func waitSettled(b *testing.B, p *proc) {
	last, since := -1, time.Now()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		var info struct {
			NumBlocks int `json:"numBlocks"`
		}
		if err := json.Unmarshal(p.get(b, "/v1/datasets/"+queryDataset+"/info"), &info); err != nil {
			b.Fatal(err)
		}
		if info.NumBlocks != last {
			last, since = info.NumBlocks, time.Now()
		}
		if time.Since(since) >= 10*time.Second {
			b.Logf("settled at %d blocks", last)
			return
		}
	}
	b.Fatalf("blocks never settled (%d)", last)
}

// startServing starts a server over the prepared directory that compacts
// nothing new during the run.
func startServing(b *testing.B, bin, data string) *proc {
	args := strings.Fields(os.Getenv("APLITE_MEMORY_FLAGS"))
	return startProc(b, bin, os.Environ(), data, seaweedtest.FreeAddr(b), args...)
}

// stopServing ends the server as an operator does (SIGTERM), so the next
// start finds no WAL to replay.
func stopServing(b *testing.B, p *proc) {
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		b.Logf("server ended: %v\n%s", err, p.log)
	}
}

// timeQuery runs q n times without the result cache and returns each
// run's wall time, as the client sees it.
func timeQuery(b *testing.B, p *proc, q benchQuery, n int) []time.Duration {
	body, _ := json.Marshal(map[string]string{"apl": q.apl()})
	ts := make([]time.Duration, n)
	for i := range ts {
		began := time.Now()
		p.post(b, "/v1/datasets/_apl?format=tabular&nocache=true", body)
		ts[i] = time.Since(began)
	}
	return ts
}

func median(ts []time.Duration) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// dropFileCache asks the kernel to drop the cached pages of every file
// under dir.
func dropFileCache(b *testing.B, dir string) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		const fadvDontNeed = 4
		if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); e != 0 {
			return fmt.Errorf("fadvise %s: %v", path, e)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// get is post's GET.
func (p *proc) get(b *testing.B, path string) []byte {
	req, _ := http.NewRequest("GET", "http://"+p.addr+path, nil)
	req.Header.Set("Authorization", "Bearer xapt-bench-nodes")
	req.Header.Set("X-Axiom-Org-Id", "default")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("%s: %d %s", path, resp.StatusCode, out)
	}
	return out
}
