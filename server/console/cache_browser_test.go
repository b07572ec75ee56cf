package console_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A query over a file read in place keeps the columns it decoded in the
// engines (issue 26: every query read and decoded the whole file again,
// 6.9 s a query over 1M events against 2.6 s for aplite query -in): the
// same query again, or another over the same fields, reads nothing of
// the file, in the worker or its helper, shows no partial answer first
// and answers as the first full read did. A query over a field not read
// yet reads the file once more, and then no more.
func TestBrowserOfflineKeepsColumns(t *testing.T) {
	h := newHarness(t)
	h.open()
	file := filepath.Join(h.dir, "events.ndjson")
	const n = 60_000 // about 40 MiB: cut in two pieces, one for the helper
	writeEvents(t, file, n)
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	eval[chromedp.Void](h, `window.apliteConsole.range.set("all")`)
	if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
		t.Fatal(err)
	}
	h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, time.Minute)
	// read is what the worker and its helper read of the file for the last
	// query, and whether the page showed a partial answer first.
	type read struct {
		Bytes   int64 `json:"bytes"`
		Partial bool  `json:"partial"`
	}
	lastRead := func() read {
		return eval[read](h, `window.apliteConsole.state.offline.call("state").done.then((s) => ({bytes: s.reading.bytes, partial: !!window.apliteConsole.state.partial}))`)
	}
	const (
		status = "['events'] | summarize count() by status"
		method = "['events'] | summarize count(), sum(resp_body_size) by method"
		count  = "['events'] | count"
	)
	answers := map[string][]string{}
	for i, step := range []struct {
		apl   string
		reads bool
	}{{status, true}, {status, false}, {method, true}, {method, false}, {status, false}, {count, false}} {
		got, ok := h.runFor(step.apl, time.Minute)
		if !ok || got.Error != "" {
			t.Fatalf("step %d, %s: %+v", i, step.apl, got)
		}
		r := lastRead()
		rows := rowsOf(t, got.Tables)
		if want, ok := answers[step.apl]; ok && !slices.Equal(rows, want) {
			t.Errorf("step %d, %s: %v, the first full read said %v", i, step.apl, rows, want)
		}
		answers[step.apl] = rows
		if step.reads && (r.Bytes < st.Size() || len(rows) == 0) {
			t.Errorf("step %d, %s: read %d bytes (%d rows), want the whole file", i, step.apl, r.Bytes, len(rows))
		}
		if !step.reads && (r.Bytes != 0 || r.Partial) {
			t.Errorf("step %d, %s: read %d bytes again, partial answer first: %v; want nothing read", i, step.apl, r.Bytes, r.Partial)
		}
		t.Logf("step %d, %s: %.0f ms, %d bytes read", i, step.apl, got.MS, r.Bytes)
	}
	if got := answers[count]; !slices.Equal(got, []string{"[60000]"}) {
		t.Errorf("%s from the kept columns: %v, want 60000", count, got)
	}
}
