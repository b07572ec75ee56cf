package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aplite/aplite/wasm/wasmtest"
)

const fixture = "../../testdata/fixtures/http-logs.ndjson"

// extraQueries add what the golden set lacks and the console leans on:
// time bins (the time chart) and a tabular round trip's source shape.
var extraQueries = []string{
	"logs | summarize count() by bin(_time, 5m)",
	"logs | summarize avg(req_duration_ms), count() by bin(_time, 10m), method",
	"logs | summarize count() by status",
	"logs | where method == 'GET' | project _time, uri, status | take 7",
}

// TestWASMAnswersLikeNative runs the golden query set (core's, over its
// fixture) in the js/wasm build under Node and in this native build, and
// requires identical answers: tables, errors and their positions, and the
// dataset listing. Only the status block (timings) may differ.
func TestWASMAnswersLikeNative(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed; the WASM-vs-native test needs it (apt-get install nodejs)")
	}
	if testing.Short() {
		t.Skip("SKIP: -short: not building the WASM engine")
	}
	queries := goldenQueries(t)
	wasm := wasmtest.Build(t)

	job, _ := json.Marshal(map[string]any{
		"now":      testNow.Format("2006-01-02T15:04:05Z07:00"),
		"datasets": []map[string]string{{"name": "logs", "file": absPath(t, fixture)}},
		"queries":  queries,
	})
	cmd := exec.Command(node, "--stack-size=8192", "testdata/node_driver.js", wasmtest.WASMExec(t), wasm)
	cmd.Stdin = bytes.NewReader(job)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Loads    []json.RawMessage
		Answers  []json.RawMessage
		Datasets json.RawMessage
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node output: %v\n%.500s", err, out)
	}
	if len(got.Answers) != len(queries) {
		t.Fatalf("node answered %d of %d queries", len(got.Answers), len(queries))
	}

	s := newTestSession(t)
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	load, err := s.Load("logs", data, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "load", got.Loads[0], load)
	sameJSON(t, "datasets", got.Datasets, s.Datasets())
	for i, q := range queries {
		sameJSON(t, q, got.Answers[i], nativeAnswer(s, q))
	}
}

// nativeAnswer is what the JavaScript API would answer for q, computed
// by this (native) build.
func nativeAnswer(s *Session, q string) any {
	r, err := s.Query(context.Background(), q, QueryOptions{Now: testNow})
	if err != nil {
		return map[string]Error{"error": ErrorOf(err)}
	}
	return r
}

// sameJSON compares a WASM answer with a native value through JSON,
// ignoring the status block (elapsed times differ).
func sameJSON(t *testing.T, what string, wasm json.RawMessage, native any) {
	t.Helper()
	nb, err := json.Marshal(native)
	if err != nil {
		t.Fatal(err)
	}
	var w, n any
	if err := json.Unmarshal(wasm, &w); err != nil {
		t.Fatalf("%s: wasm answer: %v", what, err)
	}
	_ = json.Unmarshal(nb, &n)
	for _, v := range []any{w, n} {
		if m, ok := v.(map[string]any); ok {
			delete(m, "status")
		}
	}
	if !reflect.DeepEqual(w, n) {
		wb, _ := json.Marshal(w)
		nb, _ := json.Marshal(n)
		t.Errorf("%s:\nwasm   %.800s\nnative %.800s", what, wb, nb)
	}
}

// goldenQueries reads core's golden query set plus extraQueries.
func goldenQueries(t *testing.T) []string {
	files, _ := filepath.Glob("../../core/testdata/golden/*.apl")
	if len(files) < 10 {
		t.Fatalf("found %d golden queries, want the core's set", len(files))
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(string(b)))
	}
	return append(out, extraQueries...)
}

func absPath(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatal(fmt.Errorf("fixture: %w", err))
	}
	return a
}
