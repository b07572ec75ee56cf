package server

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJavaScriptClient runs testdata/jsclient/run.mjs, a short session of
// @axiomhq/js 2.0.0, against a live server. It needs node and the package
// (npm install --prefix server/testdata/jsclient @axiomhq/js@2.0.0).
func TestJavaScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the @axiomhq/js run")
	}
	dir, _ := filepath.Abs(filepath.Join("testdata", "jsclient"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@axiomhq", "js")); err != nil {
		t.Skip("@axiomhq/js is not installed: run `npm install --prefix server/testdata/jsclient @axiomhq/js@2.0.0`")
	}
	s, err := New(Config{DataDir: t.TempDir(), Token: "xapt-js-client-token", Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}()
	url := "http://" + ln.Addr().String()
	r, _ := http.NewRequest("POST", url+"/v2/datasets", strings.NewReader(`{"name":"js-events"}`))
	r.Header.Set("Authorization", "Bearer "+s.Token())
	r.Header.Set("X-Axiom-Org-Id", s.OrgID())
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("create dataset: %v %v", resp, err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "run.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "APLITE_URL="+url, "APLITE_TOKEN="+s.Token(), "APLITE_ORG="+s.OrgID(),
		"APLITE_DATASET=js-events")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("@axiomhq/js run failed: %v\n%s", err, out)
	}
}
