package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// tryWait polls a JavaScript condition; false when it stays false for
// timeout (a hang, which the soak counts instead of stopping at).
func (h *harness) tryWait(cond string, timeout time.Duration) bool {
	_, err := chromedp.Run(h.ctx, chromedp.Poll[chromedp.Void](cond,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	return err == nil
}

// runFor runs apl as a user does (Run) and reads the page once it has
// answered; false when it did not within timeout.
func (h *harness) runFor(apl string, timeout time.Duration) (run, bool) {
	return h.runShot(apl, timeout, "")
}

// runShot runs apl as runFor does; with shot set and screenshots asked
// for (APLITE_SCREENSHOTS), it saves the page as shot-partial while it
// shows a partial answer, and as shot once it shows the whole.
func (h *harness) runShot(apl string, timeout time.Duration, shot string) (run, bool) {
	b := fmt.Sprintf("%q", apl)
	eval[chromedp.Void](h, `(() => { const c = window.apliteConsole; c.state.last = null; c.editor.value = `+b+`; c.run(); })()`)
	if shot != "" && os.Getenv("APLITE_SCREENSHOTS") != "" &&
		h.tryWait(`document.getElementById("status").dataset.partial === "true" || !window.apliteConsole.state.running`, timeout) &&
		eval[bool](h, `window.apliteConsole.state.running`) {
		h.screenshot(shot + "-partial")
	}
	defer func() {
		if shot != "" {
			h.screenshot(shot)
		}
	}()
	if !h.tryWait(`window.apliteConsole.state.last && !window.apliteConsole.state.running`, timeout) {
		return run{}, false
	}
	return eval[run](h, observe), true
}

// Offline sessions over one NDJSON file read in place: drop it, query,
// cancel a query while it reads, take a few rows (the engine stops its
// helpers early), query again. A session hangs when a step does not end
// within a minute, or Run stays disabled. APLITE_SOAK_SESSIONS and
// APLITE_SOAK_EVENTS (60,000) size it; make console-soak runs 50 sessions
// over 1,000,000 events. APLITE_SOAK_FILE names the file, written when
// it does not exist and kept.
func TestBrowserOfflineSoak(t *testing.T) {
	if os.Getenv("APLITE_SOAK_SESSIONS") == "" {
		t.Skip("SKIP: APLITE_SOAK_SESSIONS is not set (make console-soak runs it: minutes, not for make test)")
	}
	sessions := envInt("APLITE_SOAK_SESSIONS", 5)
	events := envInt("APLITE_SOAK_EVENTS", 60_000)
	h := newHarness(t)
	file := os.Getenv("APLITE_SOAK_FILE") // kept between runs: 1M events take a while to write
	if file == "" {
		file = filepath.Join(h.dir, "events.ndjson")
	}
	if _, err := os.Stat(file); err != nil {
		writeEvents(t, file, events)
	}
	const count = "['events'] | summarize count() by status"
	stepTimeout := time.Minute
	var firsts, wholes, laters, readies []float64
	hangs := 0
	var stalls readStats
	var want []string
	for s := 1; s <= sessions; s++ {
		hung := func(step string) {
			hangs++
			t.Errorf("session %d hung at %s (status %q, error %q, engine %s); the worker: %s", s, step,
				eval[string](h, `document.getElementById("status").textContent`), eval[string](h, `document.getElementById("error").textContent`),
				eval[string](h, `JSON.stringify(window.apliteConsole.engineStats)`),
				eval[string](h, `Promise.race([window.apliteConsole.state.offline.call("state").done.then(JSON.stringify, (e) => "error: " + e.message),
  new Promise((ok) => setTimeout(() => ok("no answer within 3 s"), 3000))])`))
		}
		func() {
			tab, closeTab := chromedp.NewContext(h.browse)
			defer closeTab()
			h.ctx = tab
			h.open()
			// As a user does: choose Offline, then a file, which takes
			// longer than the page takes to start its engines.
			if err := chromedp.Do(h.ctx, chromedp.Click(chromedp.CSS("#mode-offline"))); err != nil {
				t.Fatal(err)
			}
			if !h.tryWait(`window.apliteConsole.engineStats.helpersMs !== null`, stepTimeout) {
				hung("the engines' start")
				return
			}
			ready := eval[engineStart](h, `window.apliteConsole.engineStats`)
			readies = append(readies, ready.total())
			eval[chromedp.Void](h, `window.apliteConsole.range.set("all")`)
			if err := chromedp.Do(h.ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{file})); err != nil {
				t.Fatal(err)
			}
			if !h.tryWait(`document.getElementById("status").dataset.state === "loaded"`, stepTimeout) {
				hung("the drop")
				return
			}
			loadMS := eval[float64](h, `+document.getElementById("status").dataset.ms`)
			shot := func(name string) string { // session 1's pages, to look at
				if s != 1 {
					return ""
				}
				name = "offline-soak-" + strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)) + "-" + name
				return name
			}
			if name := shot("opened"); name != "" {
				h.screenshot(name)
			}
			first, ok := h.runShot(count, stepTimeout, shot("first-query"))
			if !ok {
				hung("the first query")
				return
			}
			if first.Error != "" {
				t.Errorf("session %d: %s: %s", s, count, first.Error)
				return
			}
			// The first answer is the first the page shows: the partial one
			// over the file's first slices, or the whole one.
			shown := first.MS
			if p := eval[float64](h, `(window.apliteConsole.state.partial || {}).ms || 0`); p > 0 {
				shown = p
			}
			firsts = append(firsts, loadMS+shown)
			wholes = append(wholes, loadMS+first.MS)
			t.Logf("session %d: first answer %.0f ms after the drop, whole answer %.0f ms (open %.0f ms, query %.0f ms); before the drop the engines started in %s",
				s, loadMS+shown, loadMS+first.MS, loadMS, first.MS, ready)
			rows := rowsOf(t, first.Tables)
			if want == nil {
				want = rows
			} else if !slices.Equal(rows, want) {
				t.Errorf("session %d: %v, the first session said %v", s, rows, want)
			}
			// Cancel the query once it shows it reads.
			eval[chromedp.Void](h, `(() => { const c = window.apliteConsole; c.editor.value = "['events'] | summarize dcount(id) by method";
  const o = new MutationObserver(() => { const st = document.getElementById("status");
    if (st.dataset.state === "reading" && +st.dataset.bytes > 0) { o.disconnect(); document.getElementById("cancel-load").click(); } });
  o.observe(document.getElementById("status"), {attributes: true}); c.run(); })()`)
			if !h.tryWait(`!window.apliteConsole.state.running && !document.getElementById("run").disabled`, stepTimeout) {
				hung("the cancel")
				return
			}
			if name := shot("cancelled"); name != "" {
				h.screenshot(name)
			}
			r, ok := h.runFor("['events'] | take 5", stepTimeout)
			if !ok {
				hung("take 5 after the cancel")
				return
			}
			if r.Error != "" || r.Rows != 5 {
				t.Errorf("session %d: take 5 after the cancel: %d rows, %q", s, r.Rows, r.Error)
			}
			if r, ok = h.runShot(count, stepTimeout, shot("query-again")); !ok {
				hung("the query after the cancel and the take")
				return
			}
			if got := rowsOf(t, r.Tables); r.Error != "" || !slices.Equal(got, want) {
				t.Errorf("session %d: after the cancel %s gave %v, %q", s, count, got, r.Error)
			}
			laters = append(laters, r.MS)
			// Reads that stalled and were read again (read.js), in the
			// worker and its helpers: a hang the safety net hid.
			// A stalled read that answered later was slow; one that never
			// did was lost.
			rs := eval[readStats](h, `window.apliteConsole.state.offline.call("state").done.then((s) => [s, ...s.helpers].reduce(
  (a, x) => ({stalls: a.stalls + (x.stalls || 0), late: a.late + (x.late || 0), lateMaxMs: Math.max(a.lateMaxMs, x.lateMaxMs || 0)}), {stalls: 0, late: 0, lateMaxMs: 0}))`)
			stalls.Stalls += rs.Stalls
			stalls.Late += rs.Late
			stalls.LateMaxMS = max(stalls.LateMaxMS, rs.LateMaxMS)
			if rs.Stalls > 0 {
				t.Logf("session %d: %d reads stalled and were read again; %d of them answered later, the slowest after %.0f ms", s, rs.Stalls, rs.Late, rs.LateMaxMS)
			}
		}()
	}
	line := fmt.Sprintf("%d offline sessions over %s: %d hung, %d reads stalled (%d of them answered later, the slowest after %.0f ms); first answer after the drop %s; whole answer %s; the same query later %s; engines started before the drop in %s",
		sessions, mib(t, file), hangs, stalls.Stalls, stalls.Late, stalls.LateMaxMS, spread(firsts), spread(wholes), spread(laters), spread(readies))
	t.Log("figure: " + line)
	fmt.Println("console soak: " + line)
}

// spread describes times in ms: median, 90th percentile and worst.
func spread(ms []float64) string {
	if len(ms) == 0 {
		return "none"
	}
	slices.Sort(ms)
	return fmt.Sprintf("median %.0f ms, p90 %.0f ms, worst %.0f ms", ms[len(ms)/2], ms[(len(ms)*9+9)/10-1], ms[len(ms)-1])
}

// engineStart is the page's engineStats: how the engine and its helpers
// started before the drop.
type engineStart struct {
	StartMS   float64 `json:"startMs"`
	HelpersMS float64 `json:"helpersMs"`
	Phases    struct {
		CompileMS float64 `json:"compileMs"`
		RunMS     float64 `json:"runMs"`
		WarmMS    float64 `json:"warmMs"`
	} `json:"phases"`
}

func (e engineStart) total() float64 { return e.StartMS + e.HelpersMS }

func (e engineStart) String() string {
	return fmt.Sprintf("%.0f ms (compile %.0f, run %.0f, warm-up %.0f, helpers %.0f)",
		e.total(), e.Phases.CompileMS, e.Phases.RunMS, e.Phases.WarmMS, e.HelpersMS)
}

// readStats are read.js's counts, summed over the worker and its helpers.
type readStats struct {
	Stalls    int     `json:"stalls"`
	Late      int     `json:"late"`
	LateMaxMS float64 `json:"lateMaxMs"`
}
