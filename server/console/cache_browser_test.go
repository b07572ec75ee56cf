package console_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The engines keep the columns a file read in place decodes (issue 26:
// every query read and decoded the whole file again, 6.9 s a query over
// 1M events against 2.6 s for aplite query -in): after the first query,
// and the fill that decodes the other fields while the page is idle, the
// same query again, or one over fields no query has read, reads nothing
// of the file in the worker or its helper, shows no partial answer first
// and answers as the first full read did.
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
	h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, 3*time.Minute)
	// read is what the worker and its helper read of the file for the last
	// query, and whether the page showed a partial answer first.
	type read struct {
		Bytes   int64 `json:"bytes"`
		Partial bool  `json:"partial"`
	}
	lastRead := func() read {
		return eval[read](h, `window.apliteConsole.state.offline.call("state").done.then((s) => ({bytes: s.reading.bytes, partial: !!window.apliteConsole.state.partial}))`)
	}
	const status = "['events'] | summarize count() by status"
	first, ok := h.runFor(status, 3*time.Minute)
	if !ok || first.Error != "" {
		t.Fatalf("%s: %+v", status, first)
	}
	if r := lastRead(); r.Bytes < st.Size() {
		t.Errorf("the first query read %d of %d bytes", r.Bytes, st.Size())
	}
	want := rowsOf(t, first.Tables)
	if total(t, want) != n {
		t.Fatalf("%s: %v, want %d events", status, want, n)
	}
	h.waitFor(`window.apliteConsole.state.offline.call("state").done.then((s) => !s.filling && s.filled.includes("events"))`, 5*time.Minute)
	for _, q := range []string{status, "['events'] | summarize avg(req_duration_ms), count() by method", "['events'] | where uri contains 'api' | summarize count() by server_datacenter", "['events'] | count"} {
		got, ok := h.runFor(q, time.Minute)
		if !ok || got.Error != "" {
			t.Fatalf("%s: %+v", q, got)
		}
		rows := rowsOf(t, got.Tables)
		switch {
		case q == status && !slices.Equal(rows, want):
			t.Errorf("%s: %v, the first full read said %v", q, rows, want)
		case q != status && total(t, rows) == 0:
			t.Errorf("%s: %v", q, rows)
		}
		if r := lastRead(); r.Bytes != 0 || r.Partial {
			t.Errorf("%s read %d bytes of the file again, partial answer first: %v; want nothing read", q, r.Bytes, r.Partial)
		}
		t.Logf("%s: %.0f ms from the kept columns", q, got.MS)
	}
}

// total adds up the count (the last number) of each row.
func total(t *testing.T, rows []string) int {
	n := 0
	for _, r := range rows {
		var cells []any
		if err := json.Unmarshal([]byte(r), &cells); err != nil {
			t.Fatalf("row %s: %v", r, err)
		}
		if f, ok := cells[len(cells)-1].(float64); ok {
			n += int(f)
		}
	}
	return n
}
