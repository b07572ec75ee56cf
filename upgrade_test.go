package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The token testdata/upgrade/make-fixtures.sh starts its servers with.
const upgradeToken = "xapt-upgrade-fixture-token"

// A data directory written by an earlier aplite (older block, WAL and
// metadata formats, no block manifest; testdata/upgrade/make-fixtures.sh)
// opens with this one: the events in its blocks and those still in its
// WAL answer as they were ingested, a new ingest adds to them, and a
// restart keeps both.
func TestUpgradeOpensOlderDataDirectories(t *testing.T) {
	fixtures, _ := filepath.Glob("testdata/upgrade/*.tar.gz")
	if len(fixtures) == 0 {
		t.Fatal("no fixtures in testdata/upgrade")
	}
	for _, fx := range fixtures {
		t.Run(strings.TrimSuffix(filepath.Base(fx), ".tar.gz"), func(t *testing.T) {
			data := t.TempDir()
			untar(t, fx, data)
			addr := freeAddr(t)
			s := startServe(t, "-addr", addr, "-data", data, "-token", upgradeToken)
			if log := strings.Join(s.seen, "\n"); !strings.Contains(log, "dataset walonly: replayed") {
				t.Errorf("the restart does not say it replayed the old WAL:\n%s", log)
			}
			checkUpgradeEvents(t, addr, "flushed", 0, 1500)
			checkUpgradeEvents(t, addr, "walonly", 1500, 500)

			body := `{"_time":"2024-01-02T00:00:00Z","status":999,"msg":"new","dur":1}`
			if code, b := apiCall(t, addr, "/v1/datasets/walonly/ingest", "application/x-ndjson", body); code != 200 {
				t.Fatalf("ingest after the upgrade: %d %s", code, b)
			}
			s.cmd.Process.Signal(syscall.SIGTERM)
			if err := s.cmd.Wait(); err != nil {
				t.Fatalf("stop: %v", err)
			}
			startServe(t, "-addr", addr, "-data", data, "-token", upgradeToken)
			checkUpgradeEvents(t, addr, "flushed", 0, 1500)
			got := queryRow(t, addr, `['walonly'] | summarize n = count(), new = countif(status == 999)`)
			if got[0] != float64(501) || got[1] != float64(1) {
				t.Fatalf("walonly after a new ingest and a restart: %v, want 501 events, 1 new", got)
			}
		})
	}
}

// checkUpgradeEvents compares a dataset with events FROM..FROM+N of
// make-fixtures.sh's events(): event i is at 2024-01-01 + i seconds, with
// status 200+100*(i%4), msg "m(i%7)" and dur i/4.
func checkUpgradeEvents(t *testing.T, addr, dataset string, from, n int) {
	t.Helper()
	var status, dur float64
	m3 := 0
	for i := from; i < from+n; i++ {
		status += float64(200 + 100*(i%4))
		dur += float64(i) / 4
		if i%7 == 3 {
			m3++
		}
	}
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	want := []any{float64(n), status, dur, float64(min(n, 7)), float64(m3),
		day.Add(time.Duration(from) * time.Second).Format(time.RFC3339), day.Add(time.Duration(from+n-1) * time.Second).Format(time.RFC3339)}
	got := queryRow(t, addr, fmt.Sprintf(`['%s'] | summarize n = count(), s = sum(status), d = sum(dur), m = dcount(msg), m3 = countif(msg == "m3"), lo = min(_time), hi = max(_time)`, dataset))
	for i := range want {
		if i >= 5 && len(got) > i {
			if ts, err := time.Parse(time.RFC3339Nano, fmt.Sprint(got[i])); err == nil {
				got[i] = ts.UTC().Format(time.RFC3339)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %v, want %v", dataset, got, want)
	}
	// A filter on a string, which older blocks answer from their own
	// term filters (or none).
	if row := queryRow(t, addr, fmt.Sprintf(`['%s'] | where msg == "m3" | count`, dataset)); row[0] != float64(m3) {
		t.Fatalf("%s: where msg == \"m3\" counts %v, want %d", dataset, row[0], m3)
	}
}

// apiCall POSTs body to path as the fixtures' token.
func apiCall(t *testing.T, addr, path, ctype, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+upgradeToken)
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// queryRow runs apl and returns the first row of its answer.
func queryRow(t *testing.T, addr, apl string) []any {
	t.Helper()
	q, _ := json.Marshal(map[string]string{"apl": apl})
	code, body := apiCall(t, addr, "/v1/datasets/_apl?format=tabular", "application/json", string(q))
	var res struct {
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil || code != 200 || len(res.Tables) == 0 {
		t.Fatalf("%s: %d %s", apl, code, body)
	}
	var row []any
	for _, c := range res.Tables[0].Columns {
		if len(c) == 0 {
			t.Fatalf("%s: no rows: %s", apl, body)
		}
		row = append(row, c[0])
	}
	return row
}

// untar unpacks a .tar.gz of regular files and directories into dir.
func untar(t *testing.T, path, dir string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err == nil {
				err = os.WriteFile(dst, b, 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}
