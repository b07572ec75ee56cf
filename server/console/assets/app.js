// The console: wires the editor, time range, backends, dataset list,
// chart and table together. State lives here; the modules only draw.

import { Editor } from "./editor.js";
import { TimeRange } from "./timerange.js";
import { ResultsTable } from "./table.js";
import { drawChart } from "./chart.js";
import { ServerBackend, QueryFailure, AuthFailure } from "./backends.js";
import { OfflineBackend, engineStats } from "./offline.js";
import { escapeHTML } from "./highlight.js";
import { tz } from "./tz.js";
import { topValues, renderValues, filterClause, addFilter, DetailPane } from "./explore.js";
import { remember, renderHistory } from "./history.js";
import { LiveTail } from "./tail.js";
import { Completer } from "./complete.js";
import { renderMonitors } from "./monitors.js";
import { renderDashboards } from "./dashboards.js";

const $ = (id) => document.getElementById(id);
// The token stays in localStorage, as Axiom's console keeps its session:
// a new tab stays signed in; Sign out (or a refused token) removes it.
const AUTH_KEY = "aplite.auth";
const TEXT_KEY = "aplite.editor"; // the editor's text, kept across reloads

const state = {
  server: null, // ServerBackend once signed in
  offline: new OfflineBackend(),
  mode: "server",
  running: false,
  // last is what the tests and the curious read: the latest run.
  last: null,
};

const editor = new Editor($("editor"), { onRun: run, onChange: (text) => keepText(text) });
const range = new TimeRange({ select: $("range"), custom: $("custom"), from: $("from"), to: $("to") });
const detail = new DetailPane($("detail"), {
  onFilter: async (field, v, type) => {
    await addFilter(editor, filterClause(field, v, type), state.offline);
    run();
  },
});
const table = new ResultsTable($("results"), { onRow: (row) => detail.show(row, fieldTypes()) });
// What completion draws on: datasets listed, fields fetched, functions.
const known = {
  datasets: [],
  fields: {},
  functions: [],
  values: {}, // a field's top values, once shown: completion after `field == `
  // fetchValues learns a field's top values in the dataset the query
  // names, once; true when it learnt them.
  async fetchValues(field, apl) {
    const ds = known.datasets.find((d) => apl.includes(d));
    const b = backend();
    if (!ds || !b || field in known.values) return false;
    known.values[field] = [];
    try {
      known.values[field] = await topValues(b, ds, field, range.bounds());
      return true;
    } catch {
      return false;
    }
  },
  // fetchFields learns a dataset's fields once (empty on failure).
  async fetchFields(ds) {
    known.fields[ds] = [];
    try {
      known.fields[ds] = (await backend().fields(ds)) || [];
    } catch {
      known.fields[ds] = [];
    }
  },
};
const completer = new Completer(editor, () => known);

// Syntax errors are marked while the user types, as Axiom's editor does:
// the engine's parser (in the worker, which server mode starts for this)
// checks the text once typing pauses for checkDelay ms.
const checkDelay = 250;
let checkTimer = null;
editor.area.addEventListener("input", () => {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(checkSyntax, checkDelay);
});

async function checkSyntax() {
  const text = editor.value;
  if (!text.trim()) return;
  let errs;
  try {
    errs = await state.offline.syntax(text);
  } catch {
    return; // no engine: errors show on Run
  }
  if (editor.value !== text) return; // typed on meanwhile: the next check decides
  const e = errs[0];
  const box = $("error");
  if (e && e.line) {
    box.hidden = false;
    box.textContent = `${e.line}:${e.col}: ${e.message}`;
    box.dataset.line = e.line;
    box.dataset.col = e.col;
    box.dataset.typing = "true";
    editor.markSyntax({ line: e.line, col: e.col });
  } else if (box.dataset.typing === "true") {
    showError("");
  }
}
let tail = null;

// keepText saves the editor's text, so a reload finds it again.
function keepText(text) {
  try {
    localStorage.setItem(TEXT_KEY, text);
  } catch {
    // storage full or refused: the text just does not survive a reload
  }
}

function fieldTypes() {
  const t = table.table;
  const out = {};
  if (t) t.fields.forEach((f) => { out[f.name] = f.type; });
  return out;
}

function backend() {
  return state.mode === "offline" ? state.offline : state.server;
}

const mib = (n) => (n / 1048576).toFixed(1);
// size is a byte count as a person reads it.
function size(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1048576) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1073741824) return `${mib(n)} MiB`;
  return `${(n / 1073741824).toFixed(1)} GiB`;
}

function setStatus(text, attrs = {}) {
  const s = $("status");
  s.textContent = text;
  for (const [k, v] of Object.entries(attrs)) s.dataset[k] = v;
}

function showError(message, pos) {
  const e = $("error");
  e.hidden = !message;
  e.textContent = message ? (pos ? `${pos.line}:${pos.col}: ${message}` : message) : "";
  e.dataset.line = pos ? pos.line : "";
  e.dataset.col = pos ? pos.col : "";
  e.dataset.typing = "";
  editor.markError(pos || null);
}

// --- Modes and auth -------------------------------------------------------

function setMode(mode) {
  state.mode = mode;
  $("mode-server").setAttribute("aria-selected", mode === "server");
  $("mode-offline").setAttribute("aria-selected", mode === "offline");
  document.body.dataset.mode = mode;
  const signedIn = !!state.server;
  $("signin").hidden = mode !== "server" || signedIn;
  $("who").hidden = mode !== "server" || !signedIn;
  if (mode === "offline" && range.select.value !== "custom") range.set("all");
  if (mode === "offline") state.offline.warm().catch(() => {}); // a file will come: start its helpers
  refreshDatasets();
}

function restoreAuth() {
  try {
    const saved = JSON.parse(localStorage.getItem(AUTH_KEY) || "null");
    if (saved && saved.token) useAuth(saved);
  } catch {
    localStorage.removeItem(AUTH_KEY);
  }
}

function useAuth(auth) {
  state.server = new ServerBackend(auth);
  $("who-label").textContent = `${auth.token.slice(0, 9)}…${auth.org ? " @ " + auth.org : ""}`;
}

async function signIn(ev) {
  ev.preventDefault();
  const token = $("token").value.trim();
  let org = $("org").value.trim();
  if (!token) return;
  const b = new ServerBackend({ token, org });
  try {
    if (!org && token.startsWith("xapt-")) {
      // Personal tokens act in an org: take the first one they reach.
      const orgs = await b.orgs();
      org = orgs && orgs.length ? orgs[0].id : "";
      b.org = org;
    }
    await b.datasets(); // proves the token before keeping it
  } catch (e) {
    $("datasets-note").textContent = `Sign-in failed: ${e.message}`;
    return;
  }
  localStorage.setItem(AUTH_KEY, JSON.stringify({ token, org }));
  $("token").value = "";
  useAuth({ token, org });
  setMode("server");
}

function signOut() {
  localStorage.removeItem(AUTH_KEY);
  state.server = null;
  setMode("server");
}

function authLost(e) {
  localStorage.removeItem(AUTH_KEY);
  state.server = null;
  setMode("server");
  $("datasets-note").textContent = `The server refused the token: ${e.message}. Sign in again.`;
}

// --- Datasets -------------------------------------------------------------

async function refreshDatasets() {
  const list = $("datasets");
  const note = $("datasets-note");
  const b = backend();
  list.innerHTML = "";
  if (!b) {
    note.textContent = "Sign in with a token to see the server's datasets, or open a file to query it offline.";
    return;
  }
  note.textContent = "";
  let sets;
  try {
    sets = await b.datasets();
  } catch (e) {
    if (e instanceof AuthFailure) return authLost(e);
    note.textContent = `Cannot list datasets: ${e.message}`;
    return;
  }
  if (b !== backend()) return; // the mode changed meanwhile
  known.datasets = sets.map((d) => d.name);
  loadFunctions(b);
  if (!sets.length) {
    note.textContent = state.mode === "offline" ? "No file loaded yet." : "No datasets yet.";
  }
  for (const d of sets) {
    const li = document.createElement("li");
    li.dataset.dataset = d.name;
    const count = d.inPlace ? `<span class="count">${mib(d.bytes)} MiB</span>`
      : d.numEvents !== undefined ? `<span class="count">${d.numEvents.toLocaleString("en")}${d.bytes !== undefined ? ` · ${size(d.bytes)}` : ""}</span>` : "";
    li.innerHTML = `<button type="button"><span class="name">${escapeHTML(d.name)}</span>${count}</button>`;
    li.querySelector("button").addEventListener("click", () => toggleFields(li, d.name));
    list.appendChild(li);
  }
  $("datasets").dataset.loaded = String(sets.length);
}

async function loadFunctions(b) {
  if (known.functions.length || !b.functions) return;
  try {
    known.functions = (await b.functions()) || [];
  } catch {
    known.functions = [];
  }
}

async function toggleFields(li, name) {
  const open = li.querySelector(".fields");
  if (open) {
    open.remove();
    li.classList.remove("open");
    return;
  }
  if (!editor.value.trim()) editor.value = `['${name}']\n| take 100`;
  let fields;
  try {
    fields = await backend().fields(name);
  } catch (e) {
    if (e instanceof AuthFailure) return authLost(e);
    $("datasets-note").textContent = `Cannot list fields: ${e.message}`;
    return;
  }
  known.fields[name] = fields;
  const ul = document.createElement("ul");
  ul.className = "fields";
  for (const f of fields) {
    const item = document.createElement("li");
    item.dataset.field = f.name;
    item.title = "Show the top values in the time range";
    item.innerHTML = `<span class="fname">${escapeHTML(f.name)}</span><span class="type">${escapeHTML(f.type)}</span>`;
    item.addEventListener("click", (e) => {
      e.stopPropagation();
      toggleValues(item, name, f);
    });
    ul.appendChild(item);
  }
  li.appendChild(ul);
  li.classList.add("open");
}

// toggleValues shows a field's top values; a click on one adds a where
// clause for it and runs the query.
async function toggleValues(item, dataset, f) {
  const open = item.querySelector(".values");
  if (open) {
    open.remove();
    return;
  }
  item.classList.add("loading");
  try {
    const values = await topValues(backend(), dataset, f.name, range.bounds());
    known.values[f.name] = values;
    renderValues(item, f.name, values, async (v) => {
      if (!editor.value.trim()) editor.value = `['${dataset}']`;
      await addFilter(editor, filterClause(f.name, v, f.type), state.offline);
      run();
    });
  } catch (e) {
    if (e instanceof AuthFailure) return authLost(e);
    showError(`Top values of ${f.name}: ${e.message}`);
  } finally {
    item.classList.remove("loading");
  }
}

// --- Queries --------------------------------------------------------------

async function run() {
  const b = backend();
  const apl = editor.value;
  if (!apl.trim() || state.running) return;
  if (!b) {
    showError("Sign in with a token first, or open a file to query it offline.");
    return;
  }
  state.running = true;
  state.partial = null;
  $("run").disabled = true;
  showError("");
  setStatus("Running…", { state: "running" });
  const bounds = range.bounds();
  const began = performance.now();
  try {
    let partial = null; // the partial answer shown while the file is read
    const onProgress = (p) => {
      if (p.partial) {
        partial = { ...p.partial, ms: performance.now() - began };
        state.partial = { apl, ms: partial.ms, bytes: partial.bytes, total: partial.total };
        showResult(p.partial.result);
      }
      const rows = p.rows ? `, ${p.rows.toLocaleString("en")} rows` : "";
      const shown = partial ? ` (showing the answer over the first ${mib(partial.bytes)} MiB)` : "";
      setStatus(p.partial ? `Partial answer over the first ${mib(partial.bytes)} of ${mib(partial.total)} MiB in ${partial.ms.toFixed(0)} ms; reading the rest…`
        : `Reading: ${mib(p.bytes)} of ${mib(p.total)} MiB${rows}, ${(p.ms / 1000).toFixed(1)} s${shown}`,
      { state: "reading", bytes: p.bytes || 0, rows: p.rows || 0, partial: partial ? "true" : "" });
      if (q.cancel) {
        state.cancelLoad = q.cancel;
        $("cancel-load").hidden = false;
      }
    };
    const q = b.begin ? b.begin(apl, bounds, onProgress) : { done: b.query(apl, bounds, onProgress) };
    if (q.cancel) { // at once: an engine that never reports must still be stoppable
      state.cancelLoad = q.cancel;
      $("cancel-load").hidden = false;
    }
    const res = await q.done;
    const ms = performance.now() - began;
    remember(apl);
    const { kind, rows } = showResult(res);
    state.last = { apl, bounds, mode: state.mode, ms, rows, chart: kind, result: res };
    $("save").disabled = false;
    setStatus(`${rows.toLocaleString("en")} row${rows === 1 ? "" : "s"} in ${ms.toFixed(0)} ms · ${state.mode}`,
      { state: "done", ms: ms.toFixed(1), rows, partial: "" });
  } catch (e) {
    state.last = { apl, bounds, mode: state.mode, error: e.message, pos: e.pos || null };
    $("save").disabled = true;
    if (e instanceof AuthFailure) {
      authLost(e);
      showError(`The server refused the token: ${e.message}`);
    } else {
      showError(e.message, e instanceof QueryFailure ? e.pos : null);
    }
    table.show(null);
    $("chart").innerHTML = "";
    setStatus("Failed", { state: "error", partial: "" });
  } finally {
    state.running = false;
    $("run").disabled = false;
    $("cancel-load").hidden = true;
    state.cancelLoad = null;
  }
}

// showResult draws a result's table and chart: the whole answer, or a
// partial one while a large file read in place is read.
function showResult(res) {
  detail.hide();
  table.show(res);
  return { kind: drawChart($("chart"), table.table), rows: table.rowCount() };
}

// saveResult downloads the latest result in the API's tabular shape, which
// the offline mode loads back as a dataset.
function saveResult() {
  const res = state.last && state.last.result;
  if (!res) return;
  const blob = new Blob([JSON.stringify(res)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `aplite-result-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// --- Offline files --------------------------------------------------------

async function openFile(file) {
  setMode("offline");
  setStatus(`Loading ${file.name}…`, { state: "loading" });
  const began = performance.now();
  const load = state.offline.loadFile(file, (p) => {
    state.loadProgress = p;
    setStatus(`Loading ${file.name}: ${mib(p.bytes)} of ${mib(p.total)} MiB, ${p.rows.toLocaleString("en")} rows, ${(p.ms / 1000).toFixed(1)} s`,
      { state: "loading", bytes: p.bytes, rows: p.rows });
  });
  state.cancelLoad = load.cancel;
  $("cancel-load").hidden = false;
  try {
    const r = await load.done;
    const ms = performance.now() - began;
    await refreshDatasets(); // before "loaded": the list shows the file's events
    if (r.inPlace) {
      setStatus(`Opened ${file.name} (${mib(r.bytes)} MiB ${r.format}) as ['${r.dataset}'] in ${ms.toFixed(0)} ms: each query reads it in place`,
        { state: "loaded", ms: ms.toFixed(1), dataset: r.dataset });
    } else {
      const failed = r.failed ? `, ${r.failed} failed (${r.failures.map((f) => f.error).slice(0, 3).join("; ")})` : "";
      setStatus(`Loaded ${r.ingested.toLocaleString("en")} events into ['${r.dataset}'] as ${r.format} in ${ms.toFixed(0)} ms${failed}`,
        { state: "loaded", ms: ms.toFixed(1), dataset: r.dataset });
    }
    if (!editor.value.trim() || /^\['[^']*'\]\n\| take 100$/.test(editor.value)) {
      editor.value = `['${r.dataset}']\n| take 100`;
    }
  } catch (e) {
    showError(`Cannot load ${file.name}: ${e.message}`);
    setStatus("Failed", { state: "error" });
  } finally {
    $("cancel-load").hidden = true;
    state.cancelLoad = null;
  }
}

function setupDrop() {
  const overlay = $("drop");
  let depth = 0;
  // The engine and its helpers take a second or more to start: start
  // them as soon as a file is on its way (dragged over the page, or the
  // picker opened), so the drop finds them ready.
  const warm = () => state.offline.warm().catch(() => {});
  document.addEventListener("dragenter", (e) => {
    if ([...(e.dataTransfer?.types || [])].includes("Files")) {
      if (!depth) warm();
      depth++;
      overlay.hidden = false;
    }
  });
  $("file").addEventListener("click", warm);
  document.addEventListener("dragleave", () => {
    if (--depth <= 0) {
      depth = 0;
      overlay.hidden = true;
    }
  });
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const f = e.dataTransfer?.files?.[0];
    if (f) openFile(f);
  });
  $("file").addEventListener("change", (e) => {
    const f = e.target.files[0];
    if (f) openFile(f);
    e.target.value = "";
  });
}

// --- Side panels, stars, live tail, time zone -------------------------------

function showPanel(id) {
  for (const tab of document.querySelectorAll(".tabs [role=tab]")) {
    const on = tab.dataset.panel === id;
    tab.setAttribute("aria-selected", on);
    $(tab.dataset.panel).hidden = !on;
  }
  if (id === "panel-history") refreshHistory();
  if (id === "panel-dashboards") {
    renderDashboards($("panel-dashboards"), state.mode === "server" ? state.server : null, {
      open: (apl) => { editor.value = apl; },
      query: () => editor.value.trim(),
      bounds: () => range.bounds(),
    });
  }
  if (id === "panel-monitors") {
    renderMonitors($("panel-monitors"), state.mode === "server" ? state.server : null, {
      open: (apl) => { editor.value = apl; },
      query: () => editor.value.trim(),
    });
  }
}

async function refreshHistory() {
  let starred = null;
  if (state.mode === "server" && state.server) {
    try {
      starred = await state.server.starred();
    } catch (e) {
      if (e instanceof AuthFailure) return authLost(e);
      starred = [];
    }
  }
  renderHistory($("panel-history"), starred, {
    pick: (apl) => { editor.value = apl; },
    unstar: async (id) => {
      await state.server.unstar(id);
      refreshHistory();
    },
  });
}

async function starQuery() {
  const apl = editor.value.trim();
  if (!apl) return;
  if (state.mode !== "server" || !state.server) {
    showError("Starred queries live on the server: sign in to star one.");
    return;
  }
  const name = apl.replace(/\s+/g, " ").slice(0, 80);
  try {
    await state.server.star(name, apl);
    setStatus("Starred", { state: "starred" });
    showPanel("panel-history");
  } catch (e) {
    showError(`Cannot star the query: ${e.message}`);
  }
}

function toggleTail() {
  const btn = $("tail");
  if (tail && tail.running) {
    tail.pause();
    btn.textContent = "▶ Live";
    btn.setAttribute("aria-pressed", "false");
    setStatus(`Live tail paused · ${tail.rows.length} rows kept`, { state: "paused" });
    return;
  }
  const b = backend();
  if (!b || !editor.value.trim()) return;
  if (!tail || tail.apl !== editor.value || tail.backend !== b) {
    $("chart").innerHTML = ""; // the previous query's chart says nothing of the tail's rows
    tail = new LiveTail({
      backend: b,
      onRows: (res, fresh) => {
        table.show(res);
        state.last = { apl: tail.apl, mode: state.mode, rows: tail.rows.length, tail: true, result: res };
        setStatus(`Live · ${tail.rows.length} rows (+${fresh}) · every ${tail.interval / 1000} s`, { state: "live", rows: tail.rows.length });
      },
      onError: (e) => {
        btn.textContent = "▶ Live";
        showError(e.message, e instanceof QueryFailure ? e.pos : null);
      },
    });
    tail.start(editor.value);
  } else {
    tail.resume();
  }
  btn.textContent = "❚❚ Pause";
  btn.setAttribute("aria-pressed", "true");
}

function paintTZ() {
  $("tz").textContent = tz.utc ? "UTC" : "Local";
  $("tz").title = `Times are shown in ${tz.label()}; click to switch`;
  $("tz-note").textContent = tz.utc ? "UTC" : tz.label();
}

function toggleTZ() {
  tz.set(!tz.utc);
  paintTZ();
  table.paint();
  if (state.last && state.last.result) drawChart($("chart"), table.table);
}

// --- Start ------------------------------------------------------------------

$("signin").addEventListener("submit", signIn);
$("signout").addEventListener("click", signOut);
$("mode-server").addEventListener("click", () => setMode("server"));
$("mode-offline").addEventListener("click", () => setMode("offline"));
$("refresh").addEventListener("click", refreshDatasets);
$("run").addEventListener("click", run);
$("save").addEventListener("click", saveResult);
$("star").addEventListener("click", starQuery);
$("tail").addEventListener("click", toggleTail);
$("tz").addEventListener("click", toggleTZ);
$("cancel-load").addEventListener("click", () => state.cancelLoad && state.cancelLoad());
for (const tab of document.querySelectorAll(".tabs [role=tab]")) tab.addEventListener("click", () => showPanel(tab.dataset.panel));
$("chart").addEventListener("zoom", (e) => {
  range.zoom(e.detail.from, e.detail.to);
  run();
});
paintTZ();
setupDrop();
restoreAuth();
{
  const text = localStorage.getItem(TEXT_KEY);
  if (text && !editor.value) editor.value = text;
}
// Server mode uses the engine too (its parser marks errors while typing
// and places filters): compile it in its worker once the page is idle,
// so the first click or keystroke finds it ready.
(window.requestIdleCallback || setTimeout)(() => state.offline.start().catch(() => {}));
setMode("server");

// The console's state, for tests and for poking at from devtools.
window.apliteConsole = { state, run, editor, range, openFile, setMode, engineStats, table, detail, known, completer,
  showPanel, toggleTail, get tail() { return tail; }, tz, toggleTZ };
document.body.dataset.ready = "true";
