package console_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Choosing Offline starts the engine and its helper engines before a
// file comes, and compiles the engine's code with a warm-up query (issue
// 26: the first answer within 2 s of the drop; starting them took about
// 2 s of it). The warm-up's own file never shows among the datasets, and
// a file dropped afterwards is read by the helpers already running.
func TestBrowserOfflineWarm(t *testing.T) {
	h := newHarness(t)
	h.open()
	if err := chromedp.Do(h.ctx, chromedp.Click(chromedp.CSS("#mode-offline"))); err != nil {
		t.Fatal(err)
	}
	h.waitFor(`window.apliteConsole.engineStats.helpersMs !== null`, time.Minute)
	st := eval[engineStart](h, `window.apliteConsole.engineStats`)
	if st.StartMS <= 0 || st.Phases.CompileMS <= 0 || st.Phases.RunMS <= 0 || st.Phases.WarmMS <= 0 {
		t.Errorf("the engine's start: %s, want each phase timed", st)
	}
	type helper struct {
		Helper int  `json:"helper"`
		Silent bool `json:"silent"`
		Exited bool `json:"exited"`
	}
	cores := eval[int](h, `navigator.hardwareConcurrency`)
	state := eval[struct {
		Helpers []helper `json:"helpers"`
	}](h, `window.apliteConsole.state.offline.call("state").done`)
	if want := min(cores, 8) - 1; len(state.Helpers) != want {
		t.Errorf("before any file: %d helpers running (%+v), want %d for %d cores", len(state.Helpers), state.Helpers, want, cores)
	}
	for _, x := range state.Helpers {
		if x.Silent || x.Exited {
			t.Errorf("helper %d after the warm-up: %+v", x.Helper, x)
		}
	}
	names := eval[[]string](h, `window.apliteConsole.state.offline.datasets().then((ds) => ds.map((d) => d.name))`)
	if len(names) != 0 {
		t.Errorf("before any file the datasets are %v: the warm-up left its own", names)
	}
	file := filepath.Join(h.dir, "events.ndjson")
	writeEvents(t, file, 16_000) // about 10 MiB: a partial answer, then the whole
	if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
		t.Fatal(err)
	}
	h.waitFor(`document.getElementById("status").dataset.state === "loaded"`, time.Minute)
	got, ok := h.runFor("['events'] | summarize count()", time.Minute)
	if !ok || got.Error != "" {
		t.Fatalf("the query: %+v", got)
	}
	if rows := rowsOf(t, got.Tables); !slices.Equal(rows, []string{"[16000]"}) {
		t.Errorf("the count after the warm-up: %v, want 16000", rows)
	}
	if names := eval[[]string](h, `window.apliteConsole.state.offline.datasets().then((ds) => ds.map((d) => d.name))`); !slices.Equal(names, []string{"events"}) {
		t.Errorf("after the drop the datasets are %v, want [events]", names)
	}
}
