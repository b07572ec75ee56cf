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
	if testing.Short() {
		t.Skip("SKIP: -short: builds the WASM engine")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed (apt-get install nodejs); the cancel test under Node did not run")
	}
	wasm := wasmtest.Build(t)
	cmd := exec.Command(node, "testdata/cancel_driver.js", wasmtest.WASMExec(t), wasm)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Cancelled struct{ Error struct{ Message string } }
		After     struct {
			Tables []struct{ Columns [][]any }
		}
		Error string
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &got); err != nil {
		t.Fatalf("node printed %q: %v (stderr %s)", out, err, stderr.Bytes())
	}
	if strings.Contains(stderr.String(), "released function") {
		t.Errorf("the late answer called a released function: %.300s", stderr.Bytes())
	}
	if got.Error != "" {
		t.Fatalf("%s (stderr: %.300s)", got.Error, stderr.Bytes())
	}
	if !strings.Contains(got.Cancelled.Error.Message, "cancel") {
		t.Errorf("the cancelled query answered %+v", got.Cancelled)
	}
	if len(got.After.Tables) == 0 || len(got.After.Tables[0].Columns) == 0 || got.After.Tables[0].Columns[0][0] != 450000.0 {
		t.Errorf("the query after the cancel answered %+v", got.After)
	}
}
