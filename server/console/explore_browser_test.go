package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/aplite/aplite/bench/gen"
)

// screenshot saves the page as a PNG under $APLITE_SCREENSHOTS (to look
// at), when set.
func (h *harness) screenshot(name string) {
	dir := os.Getenv("APLITE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(h.ctx, chromedp.FullScreenshot(100)) // quality 100 makes a PNG
	if err != nil {
		h.t.Logf("screenshot %s: %v", name, err)
		return
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// The console lets a user explore without writing APL first: fields and
// their top values, an event's detail pane, history and starred queries,
// live tail, the time zone and a zoom on the chart, completion, monitors,
// and a large file streamed into the offline engine with progress.
func TestBrowserExplore(t *testing.T) {
	h := newHarness(t)
	h.open()
	h.signIn()
	h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")

	t.Run("a field's top values and a click that filters", func(t *testing.T) {
		h.t = t
		want := h.query("['logs'] | summarize c = count() by status | top 3 by c desc | project v = strcat(tostring(status), ':', tostring(c))")
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = ""`)
		eval[chromedp.Void](h, `document.querySelector('#datasets li[data-dataset="logs"] button').click()`)
		h.waitFor(`document.querySelector('#datasets .fields li[data-field="status"]')`, 10*time.Second)
		eval[chromedp.Void](h, `document.querySelector('#datasets .fields li[data-field="status"]').click()`)
		h.waitFor(`document.querySelectorAll('.values[data-field="status"] li[data-value]').length >= 3`, 10*time.Second)
		top := eval[string](h, `[...document.querySelectorAll('.values[data-field="status"] li')].slice(0,3).map(li => li.dataset.value + ":" + li.querySelector(".c").textContent).join(" ")`)
		if !strings.Contains(string(want.Tables), strings.Fields(top)[0]) {
			t.Errorf("top values %q, the query says %s", top, want.Tables)
		}
		h.screenshot("fields-top-values")
		eval[chromedp.Void](h, `document.querySelector('.values[data-field="status"] li[data-value="500"]').click()`)
		// The filter's place comes from the engine's parser (a worker): the
		// editor changes, then the query runs.
		h.waitFor(`document.getElementById("status").dataset.state === "done" && window.apliteConsole.editor.value.includes("where")`, 20*time.Second)
		apl := eval[string](h, `window.apliteConsole.editor.value`)
		if !strings.Contains(apl, "| where status == 500") {
			t.Fatalf("editor after the click: %q", apl)
		}
		statuses := eval[string](h, `[...new Set(window.apliteConsole.table.table.columns[window.apliteConsole.table.table.fields.findIndex(f => f.name === "status")].map(String))].join(",")`) // 500 and "500" (the fixture sends both)
		if statuses != "500" {
			t.Errorf("after filtering on 500 the rows have status %q", statuses)
		}
	})

	t.Run("an event opens as a JSON tree whose fields filter", func(t *testing.T) {
		h.t = t
		h.query("['logs'] | where status == 404 | take 5")
		eval[chromedp.Void](h, `document.querySelector('#results tbody tr').click()`)
		h.waitFor(`!document.getElementById("detail").hidden`, 5*time.Second)
		leaves := eval[int](h, `document.querySelectorAll('#detail .leaf').length`)
		method := eval[string](h, `(document.querySelector('#detail .leaf[data-path="method"] .v') || {}).textContent || ""`)
		if leaves < 5 || method == "" {
			t.Fatalf("detail pane: %d leaves, method %q", leaves, method)
		}
		h.screenshot("event-detail")
		eval[chromedp.Void](h, `document.querySelector('#detail .leaf[data-path="method"] .copy').click()`)
		if got := eval[string](h, `window.apliteConsole.copied || ""`); got != strings.Trim(method, `"`) {
			t.Errorf("copied %q, the field shows %s", got, method)
		}
		eval[chromedp.Void](h, `document.querySelector('#detail .leaf[data-path="method"] .filter').click()`)
		h.waitFor(`document.getElementById("status").dataset.state === "done" && window.apliteConsole.editor.value.includes("| where method ==")`, 10*time.Second)
	})

	t.Run("recent queries stay in the browser, starred ones on the server", func(t *testing.T) {
		h.t = t
		apl := "['logs'] | summarize count() by method"
		h.query(apl)
		eval[chromedp.Void](h, `document.getElementById("star").click()`)
		h.waitFor(`document.querySelector('#panel-history .starred li')`, 10*time.Second)
		code, body := h.api("GET", "/v2/apl-starred-queries", "application/json", nil)
		if code != 200 || !strings.Contains(string(body), "summarize count() by method") {
			t.Fatalf("starred queries over the API: %d %s", code, body)
		}
		recent := eval[string](h, `document.querySelector('#panel-history .recent li .pick').textContent`)
		if recent != apl {
			t.Errorf("first recent query %q, want %q", recent, apl)
		}
		h.screenshot("history")
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = ""`)
		eval[chromedp.Void](h, `document.querySelector('#panel-history .starred li .pick').click()`)
		if got := eval[string](h, `window.apliteConsole.editor.value`); got != apl {
			t.Errorf("picking the starred query put %q in the editor", got)
		}
		eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-datasets")`)
	})

	t.Run("live tail follows new events and pauses", func(t *testing.T) {
		h.t = t
		line := func(i int) string {
			return fmt.Sprintf(`{"_time":%q,"n":%d}`+"\n", time.Now().UTC().Format(time.RFC3339Nano), i)
		}
		h.ingest("live", []byte(line(1)+line(2)))
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = "['live'] | project _time, n"`)
		eval[chromedp.Void](h, `window.apliteConsole.toggleTail()`)
		h.waitFor(`window.apliteConsole.tail && window.apliteConsole.tail.rows.length === 2`, 10*time.Second)
		h.api("POST", "/v1/datasets/live/ingest", "application/x-ndjson", []byte(line(3)))
		h.waitFor(`window.apliteConsole.tail.rows.length === 3 && window.apliteConsole.tail.rows[0][1] === 3`, 10*time.Second)
		eval[chromedp.Void](h, `window.apliteConsole.toggleTail()`) // pause
		h.api("POST", "/v1/datasets/live/ingest", "application/x-ndjson", []byte(line(4)))
		time.Sleep(3 * time.Second)
		if n := eval[int](h, `window.apliteConsole.tail.rows.length`); n != 3 {
			t.Errorf("paused tail shows %d rows, want 3", n)
		}
		eval[chromedp.Void](h, `window.apliteConsole.toggleTail()`) // resume
		h.waitFor(`window.apliteConsole.tail.rows.length === 4`, 10*time.Second)
		eval[chromedp.Void](h, `window.apliteConsole.toggleTail()`)
	})

	t.Run("local time by default, UTC on request, zoom by selection", func(t *testing.T) {
		h.t = t
		if _, err := chromedp.Call(h.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"}); err != nil {
			t.Fatal(err)
		}
		h.open()
		h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")
		if eval[bool](h, `window.apliteConsole.tz.utc`) {
			eval[chromedp.Void](h, `window.apliteConsole.toggleTZ()`)
		}
		h.setRange("2024-03-26T09:00:00", "2024-03-27T09:00:00") // Tokyo is UTC+9
		h.query("['logs'] | where _time == datetime(2024-03-26T11:51:29Z) | project _time")
		local := eval[string](h, `document.querySelector('#results tbody td.time').textContent`)
		eval[chromedp.Void](h, `window.apliteConsole.toggleTZ()`)
		utc := eval[string](h, `document.querySelector('#results tbody td.time').textContent`)
		if local != "2024-03-26 20:51:29" || utc != "2024-03-26 11:51:29" {
			t.Errorf("Tokyo shows %q, UTC %q", local, utc)
		}
		h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")
		h.query("['logs'] | summarize count() by bin(_time, 10m)")
		before := eval[string](h, `JSON.stringify(window.apliteConsole.state.last.bounds)`)
		eval[chromedp.Void](h, `(() => {
  const svg = document.querySelector('#chart svg'), r = svg.getBoundingClientRect();
  const at = (f) => ({ clientX: r.left + r.width * f, clientY: r.top + 40, bubbles: true });
  svg.dispatchEvent(new MouseEvent("mousedown", at(0.3)));
  svg.dispatchEvent(new MouseEvent("mousemove", at(0.5)));
  svg.dispatchEvent(new MouseEvent("mouseup", at(0.5)));
})()`)
		h.waitFor(`window.apliteConsole.state.last && JSON.stringify(window.apliteConsole.state.last.bounds) !== `+fmt.Sprintf("%q", before), 10*time.Second)
		b := eval[map[string]string](h, `window.apliteConsole.state.last.bounds`)
		s, _ := time.Parse(time.RFC3339, b["start"])
		e, _ := time.Parse(time.RFC3339, b["end"])
		if span := e.Sub(s); span <= 0 || span > 2*time.Hour {
			t.Errorf("zoomed to %v .. %v", b["start"], b["end"])
		}
		h.screenshot("zoomed-time-chart")
	})

	t.Run("completion offers datasets, operators, fields and functions", func(t *testing.T) {
		h.t = t
		typeAndList := func(text string) string {
			return eval[string](h, fmt.Sprintf(`(() => {
  const c = window.apliteConsole, a = c.editor.area;
  a.value = %q; a.setSelectionRange(a.value.length, a.value.length);
  a.dispatchEvent(new Event("input"));
  return new Promise((ok) => setTimeout(ok, 300)); // fields may be fetched first
})().then(() => {
  const box = document.querySelector(".complete");
  if (box.hidden) return "";
  return [...box.querySelectorAll("li")].map(li => li.querySelector(".label").textContent + "=" + li.querySelector(".hint").textContent).join(" ");
})`, text))
		}
		if got := typeAndList("['lo"); !strings.Contains(got, "logs=dataset") {
			t.Errorf("after ['lo: %q", got)
		}
		if got := typeAndList("['logs'] | summ"); !strings.Contains(got, "summarize=operator") {
			t.Errorf("after | summ: %q", got)
		}
		if got := typeAndList("['logs'] | where req_d"); !strings.Contains(got, "req_duration_ms=") {
			t.Errorf("after req_d: %q", got)
		}
		if got := typeAndList("['logs'] | summarize percent"); !strings.Contains(got, "percentile=percentile(") {
			t.Errorf("after percent: %q", got)
		}
		h.screenshot("completion")
		eval[chromedp.Void](h, `window.apliteConsole.editor.area.dispatchEvent(new KeyboardEvent("keydown", {key: "Tab", bubbles: true}))`)
		if got := eval[string](h, `window.apliteConsole.editor.value`); !strings.HasSuffix(got, "summarize percentile(") {
			t.Errorf("Tab took %q", got)
		}
	})

	t.Run("monitors with their state", func(t *testing.T) {
		h.t = t
		code, body := h.api("POST", "/v2/monitors", "application/json", []byte(`{"name":"errors","type":"Threshold","aplQuery":"['logs'] | where status >= 500 | count","operator":"Above","threshold":10,"intervalMinutes":5,"rangeMinutes":5}`))
		if code != 200 {
			t.Fatalf("create monitor: %d %s", code, body)
		}
		eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-monitors")`)
		h.waitFor(`document.querySelector('#panel-monitors .monitors li .name')`, 10*time.Second)
		if got := eval[string](h, `document.querySelector('#panel-monitors .monitors li .name').textContent`); got != "errors" {
			t.Errorf("monitor listed as %q", got)
		}
		h.screenshot("monitors")
		eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-datasets")`)
	})

	t.Run("a large NDJSON file is queried in place with progress, and a query can be cancelled", func(t *testing.T) {
		h.t = t
		data := gen.NDJSON(11, 60_000) // ~22 MB: six slices
		file := filepath.Join(h.dir, "stream.ndjson")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "loaded" && document.getElementById("status").dataset.dataset === "stream"`, 90*time.Second)
		eval[chromedp.Void](h, `window.apliteConsole.range.set("all")`)
		eval[chromedp.Void](h, `window.__progress = []; window.__rows = 0; new MutationObserver(() => { const s = document.getElementById("status"); if (s.dataset.state === "reading" && s.dataset.bytes) { window.__progress.push(+s.dataset.bytes); window.__rows = Math.max(window.__rows, +s.dataset.rows); } }).observe(document.getElementById("status"), {attributes: true, childList: true, subtree: true, characterData: true})`)
		if r := h.query("['stream'] | count"); !strings.Contains(string(r.Tables), "60000") {
			t.Errorf("the file counts %s", r.Tables)
		}
		if steps := eval[[]float64](h, `window.__progress`); len(steps) < 3 || steps[len(steps)-1] < float64(len(data))/2 {
			t.Errorf("progress reported %v, want one per slice read", steps)
		}
		if rows := eval[float64](h, `window.__rows`); rows <= 0 || rows > 60_000 {
			t.Errorf("progress reported %.0f rows decoded, want some of the 60000", rows)
		}
		// Cancel the next query as soon as it reports progress.
		eval[chromedp.Void](h, `new MutationObserver((_, o) => { const s = document.getElementById("status"); if (s.dataset.state === "reading") { document.getElementById("cancel-load").click(); o.disconnect(); } }).observe(document.getElementById("status"), {attributes: true})`)
		if r := h.query("['stream'] | summarize count() by status"); !strings.Contains(r.Error, "cancelled") {
			t.Errorf("a cancelled query answered %+v", r)
		}
		// The engine answers the next query whole.
		if r := h.query("['stream'] | count"); !strings.Contains(string(r.Tables), "60000") {
			t.Errorf("after a cancel, the file counts %s", r.Tables)
		}
	})

	t.Run("a CSV file streams into the offline engine with progress, and a load can be cancelled", func(t *testing.T) {
		h.t = t
		var b strings.Builder
		b.WriteString("_time,status,uri\n")
		for i := range 400_000 {
			fmt.Fprintf(&b, "2024-03-26T10:%02d:%02dZ,%d,/api/v1/items/%d/reviews?page=%d\n", i/60%60, i%60, 200+i%5, i, i%7)
		}
		file := filepath.Join(h.dir, "stream.csv")
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		eval[chromedp.Void](h, `window.__progress = []; new MutationObserver(() => { const s = document.getElementById("status"); if (s.dataset.state === "loading" && s.dataset.bytes) window.__progress.push(+s.dataset.bytes); }).observe(document.getElementById("status"), {attributes: true, childList: true, subtree: true, characterData: true})`)
		if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "loaded" && document.getElementById("status").dataset.dataset === "stream"`, 90*time.Second)
		if steps := eval[[]float64](h, `window.__progress`); len(steps) < 3 {
			t.Errorf("progress reported %d times, want one per slice", len(steps))
		}
		if r := h.query("['stream'] | count"); !strings.Contains(string(r.Tables), "400000") {
			t.Errorf("the loaded CSV counts %s", r.Tables)
		}
		// Cancel a second load as soon as it reports progress.
		file2 := filepath.Join(h.dir, "stream2.csv")
		if err := os.WriteFile(file2, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file2})); err != nil {
			t.Fatal(err)
		}
		h.waitFor(`document.getElementById("status").dataset.state === "loading" && document.getElementById("status").dataset.bytes`, 30*time.Second)
		eval[chromedp.Void](h, `document.getElementById("cancel-load").click()`)
		h.waitFor(`document.getElementById("status").dataset.state === "error"`, 30*time.Second)
		if e := eval[string](h, `document.getElementById("error").textContent`); !strings.Contains(e, "cancelled") {
			t.Errorf("cancelled load says %q", e)
		}
		if n := eval[int](h, `(async () => (await window.apliteConsole.state.offline.datasets()).filter(d => d.name === "stream2").length)()`); n != 0 {
			t.Error("a cancelled load left its dataset behind")
		}
	})
}
