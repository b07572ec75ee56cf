package console_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server"
	"github.com/aplite/aplite/server/console"
	"github.com/aplite/aplite/wasm/session"
	"github.com/aplite/aplite/wasm/wasmtest"
)

const (
	testToken = "xapt-console-browser-test-0001"
	fixture   = "../../testdata/fixtures/http-logs.ndjson"
)

// chromium returns the path of a Chromium to drive, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// harness is a real aplite server with the console on the same origin,
// and a headless Chromium with one tab open on it.
type harness struct {
	t      *testing.T
	base   string
	ctx    context.Context // the tab
	browse context.Context // the browser, for new tabs
	dir    string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	path := chromium()
	if path == "" {
		fmt.Println("SKIP browser tests: chromium is not installed (apt-get install -y chromium); the console's browser tests did not run")
		t.Skip("chromium is not installed (apt-get install -y chromium)")
	}
	if testing.Short() {
		t.Skip("SKIP: -short: no browser tests")
	}
	h := &harness{t: t, dir: t.TempDir()}
	h.base = startServer(t, consoleHandler(t))
	h.ingest("logs", readFile(t, fixture))

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(h.dir, "profile")),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(browser); err != nil { // start the browser
		t.Fatalf("start chromium: %v", err)
	}
	h.browse = browser
	h.ctx = browser
	return h
}

// consoleHandler serves the embedded console with aplite.wasm (and its
// wasm_exec.js) built from the sources under test, so the test never
// runs a stale committed engine.
func consoleHandler(t *testing.T) fasthttp.RequestHandler {
	t.Helper()
	overlay := fstest.MapFS{}
	err := fs.WalkDir(console.Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(console.Assets(), p)
		overlay[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(readFile(t, wasmtest.Build(t)))
	w.Close()
	overlay["aplite.wasm.gz"] = &fstest.MapFile{Data: gz.Bytes()}
	overlay["wasm_exec.js"] = &fstest.MapFile{Data: readFile(t, wasmtest.WASMExec(t))}
	h, err := console.NewHandler(overlay)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// startServer runs the API with the console mounted in front of it, as
// `aplite serve` does, on a loopback port.
func startServer(t *testing.T, ui fasthttp.RequestHandler) string {
	t.Helper()
	s, err := server.New(server.Config{DataDir: t.TempDir(), Token: testToken, Log: io.Discard,
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		t.Fatal(err)
	}
	api := s.Handler()
	front := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		p := string(ctx.Path())
		if p == "/" || strings.HasPrefix(p, console.Prefix) {
			ui(ctx)
			return
		}
		api(ctx)
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go front.Serve(ln)
	t.Cleanup(func() {
		front.Shutdown()
		s.Close()
	})
	return "http://" + ln.Addr().String()
}

// api calls the HTTP API as a client would.
func (h *harness) api(method, path, ctype string, body []byte) (int, []byte) {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", ctype)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func (h *harness) ingest(ds string, ndjson []byte) {
	h.t.Helper()
	if code, b := h.api("POST", "/v2/datasets", "application/json", []byte(`{"name":"`+ds+`"}`)); code != 200 {
		h.t.Fatalf("create dataset: %d %s", code, b)
	}
	if code, b := h.api("POST", "/v1/datasets/"+ds+"/ingest", "application/x-ndjson", ndjson); code != 200 {
		h.t.Fatalf("ingest: %d %s", code, b)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eval runs JavaScript in the tab (awaiting a promise result).
func eval[T any](h *harness, js string) T {
	h.t.Helper()
	v, err := chromedp.Run(h.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		h.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is truthy.
func (h *harness) waitFor(cond string, timeout time.Duration) {
	h.t.Helper()
	if _, err := chromedp.Run(h.ctx, chromedp.Poll[chromedp.Void](cond,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(timeout))); err != nil {
		h.t.Fatalf("waiting for %s: %v (status: %q, error: %q)", cond, err,
			eval[string](h, `document.getElementById("status").textContent`),
			eval[string](h, `document.getElementById("error").textContent`))
	}
}

func (h *harness) open() {
	h.t.Helper()
	if err := chromedp.Do(h.ctx, chromedp.Navigate(h.base+"/")); err != nil {
		h.t.Fatal(err)
	}
	h.waitFor(`document.body.dataset.ready === "true"`, 20*time.Second)
}

// run is what the console shows after running apl: the numbers a user
// reads off the page.
type run struct {
	Rows      int             `json:"rows"`
	MS        float64         `json:"ms"`
	Chart     string          `json:"chart"`
	Error     string          `json:"error"`
	Line      int             `json:"line"`
	Col       int             `json:"col"`
	MarkAt    int             `json:"markAt"` // offset of the error mark in the editor text, -1 if none
	MarkText  string          `json:"markText"`
	BodyRows  int             `json:"bodyRows"`
	Bars      int             `json:"bars"`
	Series    int             `json:"series"`
	Pager     string          `json:"pager"`
	Tables    json.RawMessage `json:"tables"`
	Mode      string          `json:"mode"`
	StatusMsg string          `json:"status"`
}

// observe reads the page after a run.
const observe = `(() => {
  const c = window.apliteConsole, l = c.state.last || {};
  const hl = document.getElementById("hl"), mark = hl.querySelector(".err-mark");
  let markAt = -1;
  if (mark) { const r = document.createRange(); r.setStart(hl, 0); r.setEndBefore(mark); markAt = r.toString().length; }
  const err = document.getElementById("error");
  return {
    rows: l.rows || 0, ms: l.ms || 0, chart: l.chart || "", mode: l.mode || "",
    error: err.hidden ? "" : err.textContent, line: +err.dataset.line || 0, col: +err.dataset.col || 0,
    markAt, markText: mark ? mark.textContent : "",
    bodyRows: document.querySelectorAll("#results tbody tr").length,
    bars: document.querySelectorAll("#chart rect.bar").length,
    series: document.querySelectorAll("#chart path.series").length,
    pager: (document.querySelector("#results .pager .range") || {}).textContent || "",
    tables: l.result ? l.result.tables : null,
    status: document.getElementById("status").textContent,
  };
})()`

// query sets the editor text and runs it through the console.
func (h *harness) query(apl string) run {
	h.t.Helper()
	b, _ := json.Marshal(apl)
	return eval[run](h, `(async () => {
  const c = window.apliteConsole;
  c.editor.value = `+string(b)+`;
  await c.run();
  return `+observe+`;
})()`)
}

// setRange picks a custom UTC range in the time picker.
func (h *harness) setRange(from, to string) {
	h.t.Helper()
	eval[chromedp.Void](h, fmt.Sprintf(`(() => { const c = window.apliteConsole; c.range.set("custom");
  document.getElementById("from").value = %q; document.getElementById("to").value = %q; })()`, from, to))
}

func (h *harness) signIn() {
	h.t.Helper()
	err := chromedp.Do(h.ctx,
		chromedp.SendKeys(chromedp.CSS("#token"), testToken),
		chromedp.Click(chromedp.CSS("#signin-button")),
	)
	if err != nil {
		h.t.Fatal(err)
	}
	h.waitFor(`document.querySelector('#datasets li[data-dataset="logs"]')`, 10*time.Second)
}

func TestBrowserConsole(t *testing.T) {
	h := newHarness(t)
	began := time.Now()
	h.open()
	t.Logf("figure: console page ready %v after navigation (server on loopback)", time.Since(began).Round(time.Millisecond))

	// First, while nothing has fetched or compiled the engine yet: a cold
	// page, a dropped file and one query.
	t.Run("first offline answer from a cold page", func(t *testing.T) {
		h.t = t
		file := filepath.Join(h.dir, "logs.ndjson")
		if err := os.WriteFile(file, readFile(t, fixture), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, 30*time.Second)
		r := h.query("['logs'] | summarize count() by status")
		total := eval[float64](h, `performance.now()`)
		if r.Mode != "offline" || r.Rows != 9 || r.Chart != "bar" {
			t.Fatalf("first offline query: %+v", r)
		}
		t.Logf("figure: cold page to first offline answer %.0f ms (engine fetch+compile+start %.0f ms, query %.1f ms)",
			total, eval[float64](h, `window.apliteConsole.engineStats.startMs`), r.MS)
		eval[chromedp.Void](h, `window.apliteConsole.setMode("server")`)
	})

	t.Run("token is asked once and kept until sign-out", func(t *testing.T) {
		h.t = t
		if eval[bool](h, `!document.getElementById("signin").hidden`) != true {
			t.Fatal("no sign-in form on a fresh session")
		}
		h.signIn()
		// localStorage, as Axiom's console keeps its session: a new tab
		// is signed in too (TestBrowserConsoleItems opens one).
		if saved := eval[string](h, `localStorage.getItem("aplite.auth") || ""`); !strings.Contains(saved, testToken) {
			t.Errorf("token kept as %q", saved)
		}
		h.open() // a reload keeps the session
		h.waitFor(`document.querySelector('#datasets li[data-dataset="logs"]')`, 10*time.Second)
	})

	t.Run("lists datasets and their fields", func(t *testing.T) {
		h.t = t
		if err := chromedp.Do(h.ctx, chromedp.Click(chromedp.CSS(`#datasets li[data-dataset="logs"] button`))); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.querySelector('.fields li[data-field="status"]')`, 10*time.Second)
		got := eval[map[string]string](h, `Object.fromEntries([...document.querySelectorAll(".fields li")].map(li => [li.dataset.field, li.querySelector(".type").textContent]))`)
		code, body := h.api("GET", "/v2/datasets/logs/fields", "application/json", nil)
		var fields []struct{ Name, Type string }
		if err := json.Unmarshal(body, &fields); code != 200 || err != nil || len(fields) < 10 {
			t.Fatalf("GET fields: %d %s", code, body)
		}
		for _, f := range fields {
			if got[f.Name] != f.Type {
				t.Errorf("field %s shown as %q, the API says %q", f.Name, got[f.Name], f.Type)
			}
		}
		if len(got) != len(fields) {
			t.Errorf("the console shows %d fields, the API lists %d", len(got), len(fields))
		}
	})

	t.Run("runs a typed query and shows rows and a bar chart", func(t *testing.T) {
		h.t = t
		h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")
		err := chromedp.Do(h.ctx,
			chromedp.Evaluate[chromedp.Void](`window.apliteConsole.editor.value = ""`),
			chromedp.SendKeys(chromedp.CSS("#apl"), "['logs'] | summarize count() by status"),
			chromedp.Click(chromedp.CSS("#run")),
		)
		if err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "done"`, 20*time.Second)
		r := eval[run](h, observe)
		if r.Rows != 9 || r.BodyRows != 9 || r.Chart != "bar" || r.Bars != 9 || r.Error != "" {
			t.Errorf("after running: %+v", r)
		}
		hl := eval[string](h, `document.getElementById("hl").innerHTML`)
		if !strings.Contains(hl, `<span class="kw">summarize</span>`) || !strings.Contains(hl, `<span class="ds">['logs']</span>`) {
			t.Errorf("editor not highlighted: %s", hl)
		}
	})

	t.Run("time chart for bin(_time)", func(t *testing.T) {
		h.t = t
		r := h.query("['logs'] | summarize count() by bin(_time, 10m), method")
		if r.Chart != "time" || r.Series < 2 || r.Error != "" {
			t.Errorf("time chart: %+v", r)
		}
	})

	t.Run("pages through results", func(t *testing.T) {
		h.t = t
		r := h.query("['logs'] | project _time, status, uri")
		if r.Rows != 200 || r.BodyRows != 50 || r.Pager != "1–50 of 200" || r.Chart != "" {
			t.Fatalf("first page: %+v", r)
		}
		if err := chromedp.Do(h.ctx, chromedp.Click(chromedp.CSS("#results .next"))); err != nil {
			t.Fatal(err)
		}
		// The page renders after the click's event handler returns; on a
		// loaded machine the first read can come before it.
		h.waitFor(`document.querySelector("#results .pager .range").textContent === "51–100 of 200"`, 10*time.Second)
	})

	t.Run("marks a syntax error where the server says", func(t *testing.T) {
		h.t = t
		apl := "['logs']\n| where status = = 500"
		code, body := h.api("POST", "/v1/datasets/_apl?format=tabular", "application/json", mustJSON(map[string]string{"apl": apl}))
		var e struct {
			Detail struct{ Line, Column int }
		}
		if json.Unmarshal(body, &e); code != 400 || e.Detail.Line == 0 {
			t.Fatalf("the API answered %d %s", code, body)
		}
		r := h.query(apl)
		want := offset(apl, e.Detail.Line, e.Detail.Column)
		if r.Line != e.Detail.Line || r.Col != e.Detail.Column || r.MarkAt != want || r.MarkText == "" {
			t.Errorf("error shown at %d:%d marked at offset %d (%q), want %d:%d offset %d; %+v",
				r.Line, r.Col, r.MarkAt, r.MarkText, e.Detail.Line, e.Detail.Column, want, r)
		}
		if r.Line != 2 {
			t.Errorf("the error is on line 2, shown on %d", r.Line)
		}
		if r.BodyRows != 0 || r.Chart != "" {
			t.Errorf("a failed query left results on the page: %+v", r)
		}
	})

	t.Run("offline mode answers like the server", func(t *testing.T) {
		h.t = t
		queries := []string{
			"['logs'] | summarize count() by status",
			"['logs'] | summarize avg(req_duration_ms), max(resp_body_size_bytes), dcount(uri) by method",
			"['logs'] | summarize count() by bin(_time, 10m)",
			"['logs'] | where status >= 400 | project _time, uri, status, ['geo.city'] | sort by _time asc | take 20",
			"['logs'] | where method == 'GET' and is_tls | count",
			"['logs'] | extend kb = resp_body_size_bytes / 1024.0 | summarize total = sum(kb) by ['geo.country'] | top 5 by total",
		}
		var server []run
		for _, q := range queries {
			server = append(server, h.query(q))
		}
		// The page was reloaded since the first subtest: this load starts
		// the engine again, from the browser's cache.
		file := filepath.Join(h.dir, "logs.ndjson")
		if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, 30*time.Second)
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		// Read in place, an NDJSON file lists its size, not a count.
		if n, want := eval[string](h, `document.querySelector('#datasets li[data-dataset="logs"] .count').textContent`), fmt.Sprintf("%.1f MiB", float64(st.Size())/(1<<20)); n != want {
			t.Errorf("offline dataset lists %q, want %q", n, want)
		}
		h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")
		for i, q := range queries {
			off := h.query(q)
			if off.Mode != "offline" || server[i].Mode != "server" || off.Error != "" || server[i].Error != "" {
				t.Fatalf("%s: modes %q/%q errors %q/%q", q, server[i].Mode, off.Mode, server[i].Error, off.Error)
			}
			if !sameTables(t, server[i].Tables, off.Tables) {
				t.Errorf("%s:\nserver  %.600s\noffline %.600s", q, server[i].Tables, off.Tables)
			}
			if off.Chart != server[i].Chart || off.Rows != server[i].Rows {
				t.Errorf("%s: server shows %d rows and chart %q, offline %d and %q", q, server[i].Rows, server[i].Chart, off.Rows, off.Chart)
			}
		}
		r := h.query("['logs'] | where status = = 1")
		if r.Line != 1 || r.MarkAt != offset("['logs'] | where status = = 1", r.Line, r.Col) || r.MarkText == "" {
			t.Errorf("offline syntax error not marked: %+v", r)
		}
	})

	t.Run("a saved tabular result dropped on the page", func(t *testing.T) {
		h.t = t
		eval[chromedp.Void](h, `window.apliteConsole.setMode("server")`)
		h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")
		if r := h.query("['logs'] | summarize count() by bin(_time, 10m)"); r.Chart != "time" || r.Error != "" {
			t.Fatalf("server query: %+v", r)
		}
		// What a user does with "Save result" and a drag from the desktop:
		// catch the download the button starts and drop its bytes.
		if disabled := eval[bool](h, `document.getElementById("save").disabled`); disabled {
			t.Fatal("Save result is disabled after a successful query")
		}
		saved := eval[string](h, `(async () => {
  let blob = null, clicked = "";
  const orig = URL.createObjectURL, click = HTMLAnchorElement.prototype.click;
  URL.createObjectURL = (b) => { blob = b; return orig(b); };
  // Catch the download instead of letting headless Chromium write a file.
  HTMLAnchorElement.prototype.click = function () { clicked = this.download; };
  try { document.getElementById("save").click(); } finally { URL.createObjectURL = orig; HTMLAnchorElement.prototype.click = click; }
  if (!clicked.endsWith(".json")) return "no download of a .json file: " + clicked;
  return blob ? await blob.text() : "";
})()`)
		if !strings.Contains(saved, `"format":"tabular"`) {
			t.Fatalf("Save result produced %.200q", saved)
		}
		eval[chromedp.Void](h, `(() => {
  const json = `+string(mustJSON(saved))+`;
  const dt = new DataTransfer();
  dt.items.add(new File([json], "saved result.json", { type: "application/json" }));
  document.dispatchEvent(new DragEvent("dragenter", { dataTransfer: dt, bubbles: true }));
  document.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
})()`)
		h.waitFor(`document.getElementById("status").dataset.dataset === "saved-result"`, 30*time.Second)
		if status := eval[string](h, `document.getElementById("status").textContent`); !strings.Contains(status, "as tabular") {
			t.Errorf("load status %q does not say it read a tabular result", status)
		}
		if hidden := eval[bool](h, `document.getElementById("drop").hidden`); !hidden {
			t.Error("the drop overlay stayed up after the drop")
		}
		r := h.query("['saved-result'] | summarize events = sum(count_), bins = count()")
		if r.Mode != "offline" || r.Error != "" || string(r.Tables) == "" {
			t.Fatalf("query over the dropped result: %+v", r)
		}
		if got := rowsOf(t, r.Tables); len(got) != 1 || !strings.HasPrefix(got[0], "[200,") {
			t.Errorf("dropped result sums to %v, want the 200 events of the fixture", got)
		}
	})

	t.Run("summarize count() by status over 100,000 events in the browser", func(t *testing.T) {
		h.t = t
		data := gen.NDJSON(7, 100_000)
		file := filepath.Join(h.dir, "events.ndjson")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "loaded" && document.getElementById("status").dataset.dataset === "events"`, 60*time.Second)
		loadMS := eval[float64](h, `+document.getElementById("status").dataset.ms`)
		eval[chromedp.Void](h, `window.apliteConsole.range.set("all")`)
		q := "['events'] | summarize count() by status"
		var times []string
		var last run
		for range 3 {
			last = h.query(q)
			if last.Error != "" {
				t.Fatalf("%s: %s", q, last.Error)
			}
			times = append(times, fmt.Sprintf("%.0f ms", last.MS))
		}
		t.Logf("figure: 100,000 events (%.1f MB NDJSON) loaded in %.0f ms; %s took %s (three runs)",
			float64(len(data))/1e6, loadMS, q, strings.Join(times, ", "))
		native := session.New()
		if _, err := native.Load("events", data, session.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
		want, err := native.Query(context.Background(), q, session.QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Both ran over "all time" up to their own now: compare the rows.
		if g, w := rowsOf(t, last.Tables), rowsOf(t, mustJSON(want.Tables)); !reflect.DeepEqual(g, w) || len(g) < 5 {
			t.Errorf("browser answer differs from the native one:\nbrowser %v\nnative  %v", g, w)
		}
	})

	t.Run("highlighter and chart helpers", func(t *testing.T) {
		h.t = t
		checkModules(t, h)
	})
}

// checkModules tests the console's pure helpers where they run: the
// highlighter must cover every character and survive broken text, and the
// chart helpers must pick round ticks and fill empty count bins with 0.
func checkModules(t *testing.T, h *harness) {
	type check struct {
		Name string `json:"name"`
		OK   bool   `json:"ok"`
		Got  any    `json:"got"`
	}
	checks := eval[[]check](h, `(async () => {
  const hl = await import("/console/highlight.js");
  const ch = await import("/console/chart.js");
  const out = [];
  const add = (name, ok, got) => out.push({ name, ok: !!ok, got });
  for (const text of ["['logs'] | where a == 'x", "x // c\n| project-away y", "@\"raw\\\" | 1.5h", "", "]['", "a-b - c"]) {
    const toks = hl.tokenize(text);
    const covered = toks.map(t => text.slice(t.s, t.e)).join("");
    add("tokens cover " + JSON.stringify(text), covered === text && toks.every((t, i) => i === 0 || t.s === toks[i - 1].e), covered);
  }
  const kinds = hl.tokenize("['logs'] | project-away x | extend n = strlen(s) // done");
  add("kinds", JSON.stringify(kinds.filter(t => t.cls).map(t => t.cls)) === JSON.stringify(["ds", "pipe", "kw", "pipe", "kw", "fn", "com"]), kinds);
  add("escapes html", hl.render("<b>&", null).startsWith("&lt;b&gt;&amp;"), hl.render("<b>&", null));
  add("mark at the end", hl.render("x |", [3, 3]).includes('<span class="err-mark"> </span>'), hl.render("x |", [3, 3]));
  add("offset of line 2 col 3", hl.offsetOf("ab\ncdef", 2, 3) === 5, hl.offsetOf("ab\ncdef", 2, 3));
  add("error span covers a word", JSON.stringify(hl.errorSpan("a | wher x", 4)) === "[4,8]", hl.errorSpan("a | wher x", 4));
  add("ticks", JSON.stringify(ch.niceTicks(47)) === "[0,10,20,30,40,50]", ch.niceTicks(47));
  add("ticks of 0", JSON.stringify(ch.niceTicks(0)) === "[0,1]", ch.niceTicks(0));
  const t = { fields: [{ name: "_time", type: "datetime" }, { name: "count_", type: "integer", agg: { name: "count" } }],
    groups: [{ name: "_time" }], buckets: { field: "_time", size: 60e9 },
    columns: [["2024-01-01T00:00:00Z", "2024-01-01T00:03:00Z"], [5, 2]] };
  const series = ch.timeSeries(t);
  add("empty bins are 0", JSON.stringify(series[0].pts.map(p => p[1])) === "[5,0,0,2]", series);
  add("time chart chosen", ch.chartKind(t) === "time", ch.chartKind(t));
  add("no chart for raw rows", ch.chartKind({ fields: [{ name: "a", type: "string" }], columns: [["x"]] }) === null, null);
  return out;
})()`)
	if len(checks) < 10 {
		t.Fatalf("only %d checks ran", len(checks))
	}
	for _, c := range checks {
		if !c.OK {
			t.Errorf("%s: got %v", c.Name, c.Got)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// sameTables compares two results' tables as JSON values. Rows of a
// table without a sort order are compared as a set: a summarize without
// order by may list its groups in any order.
func sameTables(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	x, y := decodeTables(t, a), decodeTables(t, b)
	if len(x) == 0 || len(x) != len(y) {
		return false
	}
	for i := range x {
		if len(x[i].Order) == 0 {
			x[i].Columns, y[i].Columns = nil, nil
			x[i].Rows, y[i].Rows = sortedRows(x[i].Rows), sortedRows(y[i].Rows)
		}
	}
	return reflect.DeepEqual(x, y)
}

type table struct {
	Name    string   `json:"name"`
	Sources any      `json:"sources"`
	Fields  any      `json:"fields"`
	Order   []any    `json:"order"`
	Groups  any      `json:"groups"`
	Range   any      `json:"range"`
	Buckets any      `json:"buckets"`
	Columns [][]any  `json:"columns"`
	Rows    []string `json:"-"`
}

func decodeTables(t *testing.T, raw json.RawMessage) []table {
	t.Helper()
	var out []table
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("tables: %v\n%.300s", err, raw)
	}
	for i := range out {
		out[i].Rows = rowStrings(out[i].Columns)
	}
	return out
}

// rowStrings turns column-major values into one JSON string per row.
func rowStrings(cols [][]any) []string {
	if len(cols) == 0 {
		return nil
	}
	rows := make([]string, len(cols[0]))
	for r := range rows {
		row := make([]any, len(cols))
		for c := range cols {
			row[c] = cols[c][r]
		}
		rows[r] = string(mustJSON(row))
	}
	return rows
}

func sortedRows(rows []string) []string {
	out := slices.Clone(rows)
	slices.Sort(out)
	return out
}

// rowsOf returns the sorted rows of the first table of a result.
func rowsOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	tabs := decodeTables(t, raw)
	if len(tabs) == 0 {
		return nil
	}
	return sortedRows(tabs[0].Rows)
}

// offset converts a 1-based line and column into an index into text.
func offset(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return min(off+col-1, len(text))
}
