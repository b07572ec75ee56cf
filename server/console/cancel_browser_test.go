package console_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Cancel gives the page back even when the offline engine never answers
// (issue 26: a query stopped making progress, Cancel did not recover, Run
// stayed disabled, only a reload helped). The page here loses every
// query and cancel message to its worker, as a stuck engine would: Cancel
// must enable Run again within a few seconds, say the engine restarted,
// and the next query must answer over the file the new engine reopened.
func TestBrowserCancelRecoversAStuckEngine(t *testing.T) {
	h := newHarness(t)
	h.open()
	file := filepath.Join(h.dir, "events.ndjson")
	writeEvents(t, file, 2_000)
	eval[chromedp.Void](h, `window.apliteConsole.range.set("all")`)
	if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
		t.Fatal(err)
	}
	h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, time.Minute)
	const count = "['events'] | summarize count()"
	want, ok := h.runFor(count, time.Minute)
	if !ok || want.Error != "" {
		t.Fatalf("before: %+v", want)
	}
	eval[chromedp.Void](h, `(() => {
  const post = Worker.prototype.postMessage;
  window.stuck = true;
  Worker.prototype.postMessage = function (m, t) {
    if (window.stuck && m && (m.op === "query" || m.op === "cancel")) return; // lost, as by a stuck engine
    return post.call(this, m, t);
  };
  const c = window.apliteConsole; c.state.last = null; c.editor.value = "['events'] | summarize dcount(id)"; c.run(); })()`)
	h.waitFor(`window.apliteConsole.state.running && !document.getElementById("cancel-load").hidden`, 10*time.Second)
	clicked := time.Now()
	eval[chromedp.Void](h, `document.getElementById("cancel-load").click()`)
	if !h.tryWait(`!window.apliteConsole.state.running && !document.getElementById("run").disabled`, 10*time.Second) {
		t.Fatalf("10 s after Cancel the page still runs the query (status %q)", eval[string](h, `document.getElementById("status").textContent`))
	}
	if took := time.Since(clicked); took > 5*time.Second {
		t.Errorf("the page came back %v after Cancel", took)
	}
	if msg := eval[string](h, `document.getElementById("error").textContent`); !strings.Contains(msg, "restarted") {
		t.Errorf("after Cancel of a stuck engine the page says %q", msg)
	}
	eval[chromedp.Void](h, `window.stuck = false`)
	got, ok := h.runFor(count, time.Minute)
	if !ok || got.Error != "" || !slices.Equal(rowsOf(t, got.Tables), rowsOf(t, want.Tables)) {
		t.Errorf("after the restart %s answered %v (%q), before %v", count, rowsOf(t, got.Tables), got.Error, rowsOf(t, want.Tables))
	}
}
