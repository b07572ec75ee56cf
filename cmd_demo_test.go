package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
)

// The simulated day maps onto the two hours before now, the rest of each
// line unchanged.
func TestDemoShiftsEventsToNow(t *testing.T) {
	now := time.Date(2030, 5, 6, 12, 0, 0, 0, time.UTC)
	in := `{"_time":"2024-03-01T00:00:00Z","status":200}` + "\n" +
		`{"_time":"2024-03-01T12:00:00Z","uri":"/a"}` + "\n" +
		`{"_time":"2024-03-02T00:00:00Z","x":1}`
	got := string(shiftToNow([]byte(in), now))
	want := `{"_time":"2030-05-06T10:00:00Z","status":200}` + "\n" +
		`{"_time":"2030-05-06T11:00:00Z","uri":"/a"}` + "\n" +
		`{"_time":"2030-05-06T12:00:00Z","x":1}`
	if got != want {
		t.Fatalf("shifted:\n%s\nwant:\n%s", got, want)
	}
	if gen.Day0.Format(time.DateOnly) != "2024-03-01" {
		t.Fatalf("gen.Day0 moved to %s: update this test's input", gen.Day0)
	}
}

// `aplite demo` serves a dataset of the generated events, all within the
// last two hours, prints a token that queries it, and stops on SIGTERM,
// removing its temporary data directory.
func TestDemoServesEventsOfTheLastTwoHours(t *testing.T) {
	addr := freeAddr(t)
	began := time.Now()
	cmd := exec.Command(bin, "demo", "-addr", addr, "-events", "3000", "-seed", "7")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var banner []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		banner = append(banner, sc.Text())
		if strings.HasPrefix(sc.Text(), "Ctrl-C") {
			break
		}
	}
	text := strings.Join(banner, "\n")
	tok := regexp.MustCompile(`token +(xapt-\w+)`).FindStringSubmatch(text)
	dir := regexp.MustCompile(`data in (\S+), removed on exit`).FindStringSubmatch(text)
	if tok == nil || dir == nil || !strings.Contains(text, "http://"+addr+"/") {
		t.Fatalf("banner lacks the token, the data directory or the URL:\n%s", text)
	}
	body := `{"apl":"logs | summarize n = count(), lo = min(_time), hi = max(_time)"}`
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/datasets/_apl?format=tabular", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok[1])
	req.Header.Set("X-Axiom-Org-Id", "default")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != 200 || len(res.Tables) != 1 {
		t.Fatalf("query: %d %v %+v", resp.StatusCode, err, res)
	}
	resp.Body.Close()
	cols := res.Tables[0].Columns
	lo, _ := time.Parse(time.RFC3339Nano, cols[1][0].(string))
	hi, _ := time.Parse(time.RFC3339Nano, cols[2][0].(string))
	if cols[0][0] != float64(3000) || lo.Before(began.Add(-demoSpan-time.Second)) || hi.After(time.Now()) || hi.Sub(lo) < demoSpan*9/10 {
		t.Fatalf("count %v, _time from %s to %s: want 3000 events over the two hours before %s", cols[0][0], lo, hi, began)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	if _, err := os.Stat(dir[1]); !os.IsNotExist(err) {
		t.Fatalf("temporary data directory %s left behind (%v)", dir[1], err)
	}
}

// `aplite demo -o FILE` writes the events as NDJSON, ending now, and
// serves nothing.
func TestDemoWritesAFile(t *testing.T) {
	path := t.TempDir() + "/events.ndjson"
	began := time.Now()
	if _, stderr, code := aplite(t, "", "demo", "-o", path, "-events", "500", "-seed", "3"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 500 {
		t.Fatalf("%d lines, want 500", len(lines))
	}
	for i, line := range lines {
		var ev struct {
			Time   time.Time `json:"_time"`
			Status int       `json:"status"`
			URI    string    `json:"uri"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.URI == "" || ev.Status == 0 {
			t.Fatalf("line %d: %v %q", i+1, err, line)
		}
		if ev.Time.Before(began.Add(-demoSpan-time.Second)) || ev.Time.After(time.Now()) {
			t.Fatalf("line %d: _time %s not in the two hours before %s", i+1, ev.Time, began)
		}
	}
}
