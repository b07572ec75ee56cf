package session_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/aplite/aplite/wasm/wasmtest"
)

// A helper's answer that arrives after its query was cancelled (the
// console's worker rejects it when Cancel stops the helpers) called a Go
// callback already released: "call to released function", as a user saw
// after a Cancel. The engine must keep answering. Driven under Node with
// the engine built from these sources.
func TestCancelledHelperAnswerLate(t *testing.T) {
	out, stderr := runDriver(t, "testdata/cancel_driver.js")
	var got struct {
		Cancelled struct{ Error struct{ Message string } }
		After     struct {
			Tables []struct{ Columns [][]any }
		}
		Error string
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &got); err != nil {
		t.Fatalf("node printed %q: %v (stderr %s)", out, err, stderr)
	}
	if strings.Contains(stderr, "released function") {
		t.Errorf("the late answer called a released function: %.300s", stderr)
	}
	if got.Error != "" {
		t.Fatalf("%s (stderr: %.300s)", got.Error, stderr)
	}
	if !strings.Contains(got.Cancelled.Error.Message, "cancel") {
		t.Errorf("the cancelled query answered %+v", got.Cancelled)
	}
	if len(got.After.Tables) == 0 || len(got.After.Tables[0].Columns) == 0 || got.After.Tables[0].Columns[0][0] != 450000.0 {
		t.Errorf("the query after the cancel answered %+v", got.After)
	}
}

// runDriver runs a Node driver of testdata over the engine built from
// these sources and returns what it printed on stdout and stderr.
func runDriver(t *testing.T, driver string) ([]byte, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIP: -short: builds the WASM engine")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed (apt-get install nodejs); the engine's tests under Node did not run")
	}
	cmd := exec.Command(node, driver, wasmtest.WASMExec(t), wasmtest.Build(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", driver, err, stderr.Bytes())
	}
	return out, stderr.String()
}

// A read the page never answers (the soak of issue 26 saw queries stop
// making progress) kept a cancelled query waiting for ever, and the
// console's Run button disabled: Cancel must end it at once, and the
// next query must answer in full.
func TestCancelEndsAStuckRead(t *testing.T) {
	out, stderr := runDriver(t, "testdata/stuck_driver.js")
	var got struct {
		Cancelled struct{ Error struct{ Message string } }
		CancelMS  float64
		After     struct {
			Tables []struct{ Columns [][]any }
		}
		Error string
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &got); err != nil {
		t.Fatalf("node printed %q: %v (stderr %s)", out, err, stderr)
	}
	if got.Error != "" {
		t.Fatalf("%s (stderr: %.300s)", got.Error, stderr)
	}
	if !strings.Contains(got.Cancelled.Error.Message, "cancel") {
		t.Errorf("the cancelled query answered %+v", got.Cancelled)
	}
	if got.CancelMS > 1000 {
		t.Errorf("the cancelled query answered %.0f ms after the cancel", got.CancelMS)
	}
	if len(got.After.Tables) == 0 || len(got.After.Tables[0].Columns) == 0 || got.After.Tables[0].Columns[0][0] != 200000.0 {
		t.Errorf("the query after the cancel answered %+v", got.After)
	}
}
