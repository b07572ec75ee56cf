package console_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// What a user of the console tripped over (issue 26): the editor squeezed
// by a tall result, filters added after a take, bars the page's own CSP
// blocked, errors only after Run, completion that offered nothing, a
// chart that hid series silently, a stray table picker, _sysTime first,
// a live tail under the previous chart, a token lost in a new tab and a
// query lost on reload.
func TestBrowserConsoleItems(t *testing.T) {
	h := newHarness(t)
	h.open()
	// Every CSP violation from here on, as the browser reports it.
	eval[chromedp.Void](h, `window.cspErrors = []; document.addEventListener("securitypolicyviolation", (e) => window.cspErrors.push(e.violatedDirective + " " + (e.sample || e.sourceFile)))`)
	h.signIn()
	h.setRange("2024-03-26T00:00:00", "2024-03-27T00:00:00")

	t.Run("a tall result leaves the editor its height", func(t *testing.T) {
		h.t = t
		before := eval[int](h, `document.getElementById("editor").offsetHeight`)
		if r := h.query("['logs'] | take 200"); r.BodyRows < 50 {
			t.Fatalf("%d rows shown", r.BodyRows)
		}
		after := eval[int](h, `document.getElementById("editor").offsetHeight`)
		if before < 100 || after != before {
			t.Errorf("editor %d px before the result, %d px after", before, after)
		}
	})

	t.Run("a top value filters right after the source, with no CSP error", func(t *testing.T) {
		h.t = t
		want := h.query("['logs'] | where status == 500 | count").Tables
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = "['logs'] | take 100"`)
		eval[chromedp.Void](h, `document.querySelector('#datasets li[data-dataset="logs"] button').click()`)
		h.waitFor(`document.querySelector('#datasets .fields li[data-field="status"]')`, 10*time.Second)
		eval[chromedp.Void](h, `document.querySelector('#datasets .fields li[data-field="status"]').click()`)
		h.waitFor(`document.querySelector('.values[data-field="status"] li[data-value="500"]')`, 10*time.Second)
		if w := eval[int](h, `document.querySelector('.values[data-field="status"] li .pct').offsetWidth`); w <= 0 {
			t.Errorf("the top value's bar is %d px wide", w)
		}
		eval[chromedp.Void](h, `document.querySelector('.values[data-field="status"] li[data-value="500"]').click()`)
		h.waitFor(`document.getElementById("status").dataset.state === "done" && window.apliteConsole.editor.value.includes("where")`, 10*time.Second)
		if got := eval[string](h, `window.apliteConsole.editor.value`); got != "['logs']\n| where status == 500\n| take 100" {
			t.Errorf("editor after the click: %q", got)
		}
		rows := eval[int](h, `window.apliteConsole.state.last.rows`)
		if !strings.Contains(string(want), fmt.Sprintf("[%d]", rows)) {
			t.Errorf("%d rows after the filter, the count is %s", rows, want)
		}
		// After a summarize the filter still goes on the events.
		h.query("['logs'] | summarize count() by method")
		eval[chromedp.Void](h, `document.querySelector('.values[data-field="status"] li[data-value="500"]').click()`)
		h.waitFor(`document.getElementById("status").dataset.state !== "running" && window.apliteConsole.editor.value.includes("where")`, 10*time.Second)
		if got, r := eval[string](h, `window.apliteConsole.editor.value`), eval[run](h, observe); got != "['logs']\n| where status == 500\n| summarize count() by method" || r.Error != "" || r.Rows == 0 {
			t.Errorf("after a summarize: %q gave %d rows, error %q", got, r.Rows, r.Error)
		}
		h.screenshot("items-top-value-filter")
		if errs := eval[[]string](h, `window.cspErrors`); len(errs) > 0 {
			t.Errorf("CSP violations: %q", errs)
		}
	})

	t.Run("the event pane's filter goes after the source too", func(t *testing.T) {
		h.t = t
		h.query("['logs'] | where status == 404 | take 5")
		eval[chromedp.Void](h, `document.querySelector('#results tbody tr').click()`)
		h.waitFor(`!document.getElementById("detail").hidden`, 5*time.Second)
		eval[chromedp.Void](h, `document.querySelector('#detail .leaf[data-path="method"] .filter').click()`)
		h.waitFor(`document.getElementById("status").dataset.state === "done" && window.apliteConsole.editor.value.includes("method")`, 10*time.Second)
		got := eval[string](h, `window.apliteConsole.editor.value`)
		if !strings.HasPrefix(got, "['logs'] | where status == 404\n| where method == ") || !strings.HasSuffix(got, "\n| take 5") {
			t.Errorf("editor after the pane's filter: %q", got)
		}
	})

	t.Run("a syntax error is marked while typing", func(t *testing.T) {
		h.t = t
		eval[chromedp.Void](h, `window.apliteConsole.state.last = null; document.getElementById("error").hidden = true`)
		eval[chromedp.Void](h, `(() => { const a = window.apliteConsole.editor.area; a.value = "['logs']\n| wher status == 500"; a.dispatchEvent(new Event("input")); })()`)
		h.waitFor(`!document.getElementById("error").hidden && document.querySelector("#hl .err-mark")`, 10*time.Second)
		r := eval[run](h, observe)
		if r.Line != 2 || r.MarkAt < len("['logs']\n") || eval[bool](h, `window.apliteConsole.state.last !== null`) {
			t.Errorf("while typing: error %q at %d:%d, mark at %d (no query run: %v)", r.Error, r.Line, r.Col, r.MarkAt, eval[bool](h, `window.apliteConsole.state.last === null`))
		}
		eval[chromedp.Void](h, `(() => { const a = window.apliteConsole.editor.area; a.value = "['logs']\n| where status == 500"; a.dispatchEvent(new Event("input")); })()`)
		h.waitFor(`document.getElementById("error").hidden && !document.querySelector("#hl .err-mark")`, 10*time.Second)
	})

	t.Run("completion after ['  | and geo. and method == ", func(t *testing.T) {
		h.t = t
		list := func(text string, want string) {
			t.Helper()
			b := fmt.Sprintf("%q", text)
			eval[chromedp.Void](h, `(() => { const a = window.apliteConsole.editor.area; a.value = `+b+`;
  a.setSelectionRange(a.value.length, a.value.length); a.dispatchEvent(new Event("input")); })()`)
			// Fields and values may be fetched first: wait for the list.
			cond := fmt.Sprintf(`[...document.querySelectorAll(".complete:not([hidden]) li")].some(li => li.querySelector(".label").textContent + "=" + li.querySelector(".hint").textContent === %q)`, want)
			if _, err := chromedp.Run(h.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(5*time.Second))); err != nil {
				t.Errorf("after %q: no %q in %q", text, want, eval[string](h, `[...document.querySelectorAll(".complete li")].map(li => li.textContent).join(" | ")`))
			}
		}
		list("['", "logs=dataset")
		list("['logs'] | ", "where=operator")
		list("['logs'] | where geo.", "geo.city=string")
		list("['logs'] | where method == ", "GET="+topCount(h, "GET"))
		eval[chromedp.Void](h, `window.apliteConsole.editor.area.dispatchEvent(new KeyboardEvent("keydown", {key: "Tab", bubbles: true}))`)
		if got := eval[string](h, `window.apliteConsole.editor.value`); !strings.HasSuffix(got, `method == "GET"`) {
			t.Errorf("Tab took %q", got)
		}
	})

	t.Run("13 series show 10 and say +3 more; no stray table picker", func(t *testing.T) {
		h.t = t
		var b strings.Builder
		for k := 1; k <= 13; k++ {
			for i := 0; i < k; i++ {
				fmt.Fprintf(&b, `{"_time":"2024-03-26T10:%02d:00Z","k":"k%02d"}`+"\n", i%5, k)
			}
		}
		h.ingest("many", []byte(b.String()))
		r := h.query("['many'] | summarize count() by bin(_time, 1m), k")
		more := eval[string](h, `(document.querySelector("#chart .legend text.more") || {}).textContent || ""`)
		if r.Series != 10 || more != "+3 more" {
			t.Errorf("%d series drawn, legend says %q", r.Series, more)
		}
		if n := eval[int](h, `document.querySelectorAll("#results .table-pick").length`); n != 0 {
			t.Errorf("%d table pickers for one table and its _totals", n)
		}
		h.screenshot("items-13-series")
	})

	t.Run("live tail drops the previous query's chart", func(t *testing.T) {
		h.t = t
		if r := h.query("['logs'] | summarize count() by bin(_time, 1h)"); r.Series == 0 {
			t.Fatalf("no chart to start with: %+v", r.Chart)
		}
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = "['logs'] | project _time, status"`)
		eval[chromedp.Void](h, `window.apliteConsole.toggleTail()`)
		n := eval[int](h, `document.querySelectorAll("#chart svg").length`)
		eval[chromedp.Void](h, `window.apliteConsole.toggleTail()`) // pause
		if n != 0 {
			t.Errorf("%d charts under the live tail", n)
		}
	})

	t.Run("_sysTime is hidden until asked for", func(t *testing.T) {
		h.t = t
		h.query("['logs'] | take 3")
		heads := func() string {
			return eval[string](h, `[...document.querySelectorAll("#results th")].map(th => th.textContent).join(",")`)
		}
		if got := heads(); strings.Contains(got, "_sysTime") || !strings.HasPrefix(got, "_time,") {
			t.Errorf("columns %s", got)
		}
		eval[chromedp.Void](h, `document.querySelector("#results .toggle-hidden").click()`)
		if got := heads(); !strings.Contains(got, "_sysTime") {
			t.Errorf("after Show: columns %s", got)
		}
		eval[chromedp.Void](h, `document.querySelector("#results .toggle-hidden").click()`)
	})

	t.Run("the sidebar shows each dataset's event count and size", func(t *testing.T) {
		h.t = t
		eval[chromedp.Void](h, `document.getElementById("refresh").click()`)
		h.waitFor(`document.querySelector('#datasets li[data-dataset="many"] .count')`, 10*time.Second)
		got := eval[string](h, `document.querySelector('#datasets li[data-dataset="many"] .count').textContent`)
		if !strings.HasPrefix(got, "91 · ") || !strings.HasSuffix(got, "B") {
			t.Errorf("the sidebar says %q of a dataset of 91 events", got)
		}
	})

	t.Run("monitors are made, edited, disabled and opened in the console", func(t *testing.T) {
		h.t = t
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = "['logs'] | where status >= 500 | count"`)
		eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-monitors")`)
		h.waitFor(`document.querySelector("#panel-monitors .new-monitor")`, 10*time.Second)
		eval[chromedp.Void](h, `document.querySelector("#panel-monitors .new-monitor").click()`)
		eval[chromedp.Void](h, `(() => { const f = document.querySelector("#panel-monitors .monitor-form"); f.elements.name.value = "errors"; f.elements.threshold.value = "10"; f.requestSubmit(); })()`)
		h.waitFor(`document.querySelector('#panel-monitors .monitors li[data-id] .name')`, 10*time.Second)
		monitor := func() map[string]any {
			code, body := h.api("GET", "/v2/monitors", "application/json", nil)
			var list []map[string]any
			if code != 200 || json.Unmarshal(body, &list) != nil || len(list) != 1 {
				t.Fatalf("monitors over the API: %d %s", code, body)
			}
			return list[0]
		}
		if m := monitor(); m["name"] != "errors" || m["aplQuery"] != "['logs'] | where status >= 500 | count" || m["threshold"] != 10.0 {
			t.Errorf("created %v", m)
		}
		eval[chromedp.Void](h, `document.querySelector("#panel-monitors .monitors li .edit").click()`)
		eval[chromedp.Void](h, `(() => { const f = document.querySelector("#panel-monitors .monitor-form"); f.elements.threshold.value = "25"; f.requestSubmit(); })()`)
		h.waitFor(`!document.querySelector("#panel-monitors .monitor-form")`, 10*time.Second)
		if m := monitor(); m["threshold"] != 25.0 || m["name"] != "errors" {
			t.Errorf("after the edit: %v", m)
		}
		eval[chromedp.Void](h, `document.querySelector("#panel-monitors .monitors li .toggle").click()`)
		h.waitFor(`document.querySelector("#panel-monitors .monitors li .toggle").textContent === "Enable"`, 10*time.Second)
		if m := monitor(); m["disabled"] != true {
			t.Errorf("after Disable: %v", m)
		}
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = ""`)
		eval[chromedp.Void](h, `document.querySelector("#panel-monitors .monitors li .open").click()`)
		if got := eval[string](h, `window.apliteConsole.editor.value`); got != "['logs'] | where status >= 500 | count" {
			t.Errorf("Open query put %q in the editor", got)
		}
		h.screenshot("items-monitors")
		eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-datasets")`)
	})

	t.Run("a query saved to a dashboard, listed and opened with its charts", func(t *testing.T) {
		h.t = t
		add := func(apl string) {
			t.Helper()
			b, _ := json.Marshal(apl)
			eval[chromedp.Void](h, `window.apliteConsole.editor.value = `+string(b))
			eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-dashboards")`)
			h.waitFor(`document.querySelector("#panel-dashboards").dataset.busy === "false"`, 10*time.Second)
			eval[chromedp.Void](h, `(() => { const f = document.querySelector("#panel-dashboards .add-chart"); f.elements.name.value = "ops"; f.requestSubmit(); })()`)
			h.waitFor(`(document.querySelector("#panel-dashboards .dash-note") || {}).textContent === "Added to ops."`, 10*time.Second)
		}
		add("['logs'] | summarize count() by bin(_time, 1h)")
		add("['logs'] | summarize count() by method")
		code, body := h.api("GET", "/v2/dashboards", "application/json", nil)
		var list []struct {
			Dashboard struct {
				Name   string
				Charts []struct{ Query struct{ APL string } }
			}
		}
		if code != 200 || json.Unmarshal(body, &list) != nil || len(list) != 1 || list[0].Dashboard.Name != "ops" ||
			len(list[0].Dashboard.Charts) != 2 || list[0].Dashboard.Charts[1].Query.APL != "['logs'] | summarize count() by method" {
			t.Fatalf("dashboards over the API: %d %s", code, body)
		}
		h.waitFor(`document.querySelector("#panel-dashboards").dataset.busy === "false"`, 10*time.Second)
		eval[chromedp.Void](h, `document.querySelector("#panel-dashboards .dashboards li .pick").click()`)
		h.tryWait(`document.querySelectorAll("#panel-dashboards .dash-chart[data-kind]").length === 2`, 10*time.Second)
		if got := eval[string](h, `[...document.querySelectorAll("#panel-dashboards .dash-chart")].map(c => c.dataset.kind + ":" + c.querySelectorAll("svg").length + c.querySelector(".note").textContent).join(",")`); got != "time:1,bar:1" {
			t.Errorf("the dashboard's charts drew %q", got)
		}
		h.screenshot("items-dashboard")
		eval[chromedp.Void](h, `window.apliteConsole.showPanel("panel-datasets")`)
	})

	t.Run("a new tab stays signed in, a reload keeps the text, sign-out forgets the token", func(t *testing.T) {
		h.t = t
		eval[chromedp.Void](h, `window.apliteConsole.editor.value = "['logs'] | count // kept"`)
		h.open()
		if got := eval[string](h, `window.apliteConsole.editor.value`); got != "['logs'] | count // kept" {
			t.Errorf("after a reload the editor holds %q", got)
		}
		tab, cancel := chromedp.NewContext(h.browse)
		defer cancel()
		main := h.ctx
		h.ctx = tab
		h.open()
		h.waitFor(`document.querySelector('#datasets li[data-dataset="logs"]') && !document.getElementById("who").hidden`, 10*time.Second)
		h.ctx = main
		eval[chromedp.Void](h, `document.getElementById("signout").click()`)
		if got := eval[string](h, `JSON.stringify(Object.assign({}, localStorage))`); strings.Contains(got, testToken) {
			t.Errorf("after sign-out localStorage holds the token: %s", got)
		}
		if eval[bool](h, `document.getElementById("signin").hidden`) {
			t.Error("no sign-in form after sign-out")
		}
	})
}

// topCount is how the console prints the count of a method in the range.
func topCount(h *harness, method string) string {
	h.t.Helper()
	return eval[string](h, fmt.Sprintf(`(async () => { const r = await window.apliteConsole.state.server.query(%q, window.apliteConsole.range.bounds());
  return r.tables[0].columns[0][0].toLocaleString("en"); })()`, fmt.Sprintf("['logs'] | where method == %q | count", method)))
}
