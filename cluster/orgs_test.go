package cluster

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
)

// checkOrgsApart: an org made with `aplite admin` on the running ingest
// node reaches the query nodes with the metadata; its own "logs" dataset
// (stored under another name in the bucket) holds its own events, and
// queries in either org, fragments included, never see the other's.
func checkOrgsApart(t *testing.T, ingest, q1, q2 *node, total int) {
	for _, args := range [][]string{
		{"org", "create", "beta"},
		{"user", "add", "admin@localhost", "-org", "beta", "-role", "owner"},
	} {
		cmd := exec.Command(binary, append(append([]string{"admin"}, args...), "-data", ingest.data)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("admin %v: %v: %s", args, err, out)
		}
	}
	must := func(n *node, method, path, ctype string, body []byte) {
		t.Helper()
		if code, b := n.callIn("beta", token, method, path, ctype, body); code/100 != 2 {
			t.Fatalf("%s %s %s in beta: %d %s", n.name, method, path, code, b)
		}
	}
	must(ingest, "POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
	const batches, per = 4, 500 // a block each, so fragments reach both query nodes
	for i := 0; i < batches; i++ {
		must(ingest, "POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(int64(100+i), per))
		time.Sleep(350 * time.Millisecond)
	}
	want := fmt.Sprintf("[[%d]]", batches*per)
	for _, n := range []*node{ingest, q1, q2} {
		for _, apl := range []string{"['logs'] | count", "union * | count"} {
			body := []byte(fmt.Sprintf(`{"apl":%q,"startTime":"2000-01-01T00:00:00Z","endTime":"2100-01-01T00:00:00Z"}`, apl))
			deadline := time.Now().Add(60 * time.Second)
			for {
				code, b := n.callIn("beta", token, "POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", body)
				if code == 200 && containsColumns(b, want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %s in beta: %d %s, want %s\nnode log:\n%s", n.name, apl, code, b, want, n.log.String())
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		n.waitCount(total) // the default org's logs are unchanged
		if got := n.query("union * | count"); got != fmt.Sprintf("[[%d]]", total) {
			t.Errorf("%s: union * in the default org counts %s, want %d", n.name, got, total)
		}
	}
}

// containsColumns reports whether a tabular answer's first table has the
// columns want (JSON).
func containsColumns(answer []byte, want string) bool {
	var res struct {
		Tables []struct {
			Columns json.RawMessage `json:"columns"`
		} `json:"tables"`
	}
	return json.Unmarshal(answer, &res) == nil && len(res.Tables) > 0 && string(res.Tables[0].Columns) == want
}
