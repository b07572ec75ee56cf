package console_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A query over a large file read in place answers first from the file's
// first slices, shown as partial, then in full (issue 26: the first
// answer over a 1M-event file took 10 s). The partial table counts fewer
// events than the file holds; the whole answer counts them all and
// replaces it.
func TestBrowserPartialFirstAnswer(t *testing.T) {
	h := newHarness(t)
	h.open()
	file := filepath.Join(h.dir, "events.ndjson")
	const n = 16_000 // about 10 MiB: more than the 8 MiB below which no partial answer is given
	writeEvents(t, file, n)
	eval[chromedp.Void](h, `window.apliteConsole.range.set("all")`)
	if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
		t.Fatal(err)
	}
	h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, time.Minute)
	// Record each table the page shows while the query runs.
	eval[chromedp.Void](h, `(() => { window.shown = [];
  const o = new MutationObserver(() => { const st = document.getElementById("status");
    if (st.dataset.partial === "true" && !window.shown.length) window.shown.push(document.querySelector("#results tbody td:last-child")?.textContent || ""); });
  o.observe(document.getElementById("status"), {attributes: true, childList: true, subtree: true}); })()`)
	got, ok := h.runFor("['events'] | summarize count()", time.Minute)
	if !ok || got.Error != "" {
		t.Fatalf("the query: %+v", got)
	}
	if rows := rowsOf(t, got.Tables); !slices.Equal(rows, []string{"[16000]"}) {
		t.Errorf("the whole answer counts %v, want 16000", rows)
	}
	p := eval[struct {
		MS    float64 `json:"ms"`
		Bytes int64   `json:"bytes"`
		Total int64   `json:"total"`
	}](h, `window.apliteConsole.state.partial || {}`)
	if p.Bytes != 1<<20 || p.Total <= 8*p.Bytes || p.MS <= 0 {
		t.Errorf("the partial answer: %+v, want the first MiB of the file", p)
	}
	shown := eval[[]string](h, `window.shown`)
	if len(shown) != 1 || shown[0] == "" || shown[0] == "16,000" || shown[0] == "16000" {
		t.Errorf("the partial table showed %q, want a count of the first slices only", shown)
	}
	if st := eval[string](h, `document.getElementById("status").dataset.partial`); st != "" {
		t.Errorf("after the whole answer the status still says partial (%q)", st)
	}
}
