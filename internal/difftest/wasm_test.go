package difftest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/aplite/aplite/wasm/session"
	"github.com/aplite/aplite/wasm/wasmtest"
)

// TestDifftestWASM answers generated queries with the js/wasm build
// under Node and with the same code built natively (wasm/session, one
// worker on both sides), and compares. It builds the WASM engine (about a
// link) and starts Node, which does not fit the smoke's minute: it runs
// only when DIFFTEST_WASM is set (make difftest sets it).
func TestDifftestWASM(t *testing.T) {
	if os.Getenv("DIFFTEST_WASM") == "" {
		t.Skip("SKIP: DIFFTEST_WASM is not set (make difftest runs this mode)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node is not installed; the WASM mode needs it (apt-get install nodejs)")
	}
	c := config(t)
	began := time.Now()
	wasm := wasmtest.Build(t)
	n := int(envInt(t, "DIFFTEST_WASM_N", 200))
	p := Params{Seed: c.Seed, Events: c.Events, Chunks: c.Chunks, Dims: c.Dims}
	if p.Events == 0 {
		p.Events = EventsFor(p.Seed)
	}
	d := Generate(p)
	logsFile, dimsFile, err := WriteData(d, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := session.New()
	for name, file := range map[string]string{"logs": logsFile, "dims": dimsFile} {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(name, body, session.LoadOptions{Format: "ndjson", Now: Now}); err != nil {
			t.Fatal(err)
		}
	}
	native := func(q string) *Answer {
		r, err := s.Query(context.Background(), q, session.QueryOptions{Now: Now})
		if err != nil {
			return &Answer{Err: session.ErrorOf(err).Message}
		}
		js, _ := json.Marshal(r)
		return fromJSON(t, js)
	}
	schema := func(ds string) []Col {
		var cols []Col
		for _, row := range native("['" + ds + "'] | getschema").Tables[0].Rows {
			cols = append(cols, Col{row[0].(string), row[3].(string)})
		}
		return cols
	}
	g := NewGen(p.Seed, d, schema("logs"), schema("dims"))
	queries := make([]Query, n)
	texts := make([]string, n)
	for i := range queries {
		queries[i] = g.Query()
		texts[i] = queries[i].String()
	}
	job, _ := json.Marshal(map[string]any{"now": Now.Format(time.RFC3339), "queries": texts,
		"datasets": []map[string]string{{"name": "logs", "file": logsFile}, {"name": "dims", "file": dimsFile}}})
	cmd := exec.Command(node, "--stack-size=8192", "testdata/node_driver.js", wasmtest.WASMExec(t), wasm)
	cmd.Stdin = bytes.NewReader(job)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var got struct{ Answers []json.RawMessage }
	if err := json.Unmarshal(out, &got); err != nil || len(got.Answers) != n {
		t.Fatalf("node answered %d of %d queries (%v)", len(got.Answers), n, err)
	}
	compared, capped := 0, 0
	for i, q := range queries {
		want := native(texts[i])
		if want.Rows() >= 1000 { // the session's default limit keeps any 1000 of them
			capped++
			continue
		}
		compared++
		if d := Diff(want, fromJSON(t, got.Answers[i]), q.Order()); d != "" {
			report := t.Errorf
			if known := knownFault(Case{Diff: d}); known != "" {
				report = t.Logf
			}
			report("mode wasm, data %s, query #%d\n  query: %s\n  %s\n  re-run: make difftest SEED=%d DIFFTEST_WASM_N=%d",
				p, i, texts[i], d, p.Seed, i+1)
		}
	}
	t.Logf("difftest wasm: %d queries, %d compared (%d left out: 1000 rows or more), %.1f minutes", n, compared, capped, time.Since(began).Minutes())
}

// fromJSON reads a tabular answer, or the {"error": {...}} the JavaScript
// API answers instead.
func fromJSON(t *testing.T, js []byte) *Answer {
	var env struct {
		Error  *struct{ Message string }
		Tables json.RawMessage
	}
	if err := json.Unmarshal(js, &env); err != nil {
		t.Fatalf("answer: %v: %.300s", err, js)
	}
	if env.Error != nil {
		return &Answer{Err: env.Error.Message}
	}
	a, err := decodeTables(env.Tables)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
