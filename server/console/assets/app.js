// The console: wires the editor, time range, backends, dataset list,
// chart and table together. State lives here; the modules only draw.

import { Editor } from "./editor.js";
import { TimeRange } from "./timerange.js";
import { ResultsTable } from "./table.js";
import { drawChart } from "./chart.js";
import { ServerBackend, OfflineBackend, QueryFailure, AuthFailure, engineStats } from "./backends.js";
import { escapeHTML } from "./highlight.js";

const $ = (id) => document.getElementById(id);
const AUTH_KEY = "aplite.auth"; // sessionStorage only: the token dies with the tab

const state = {
  server: null, // ServerBackend once signed in
  offline: new OfflineBackend(),
  mode: "server",
  running: false,
  // last is what the tests and the curious read: the latest run.
  last: null,
};

const editor = new Editor($("editor"), { onRun: run });
const range = new TimeRange({ select: $("range"), custom: $("custom"), from: $("from"), to: $("to") });
const table = new ResultsTable($("results"));

function backend() {
  return state.mode === "offline" ? state.offline : state.server;
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
  refreshDatasets();
}

function restoreAuth() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(AUTH_KEY) || "null");
    if (saved && saved.token) useAuth(saved);
  } catch {
    sessionStorage.removeItem(AUTH_KEY);
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
  sessionStorage.setItem(AUTH_KEY, JSON.stringify({ token, org }));
  $("token").value = "";
  useAuth({ token, org });
  setMode("server");
}

function signOut() {
  sessionStorage.removeItem(AUTH_KEY);
  state.server = null;
  setMode("server");
}

function authLost(e) {
  sessionStorage.removeItem(AUTH_KEY);
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
  if (!sets.length) {
    note.textContent = state.mode === "offline" ? "No file loaded yet." : "No datasets yet.";
  }
  for (const d of sets) {
    const li = document.createElement("li");
    li.dataset.dataset = d.name;
    const count = d.numEvents !== undefined ? `<span class="count">${d.numEvents.toLocaleString("en")}</span>` : "";
    li.innerHTML = `<button type="button"><span class="name">${escapeHTML(d.name)}</span>${count}</button>`;
    li.querySelector("button").addEventListener("click", () => toggleFields(li, d.name));
    list.appendChild(li);
  }
  $("datasets").dataset.loaded = String(sets.length);
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
  const ul = document.createElement("ul");
  ul.className = "fields";
  for (const f of fields) {
    const item = document.createElement("li");
    item.dataset.field = f.name;
    item.title = "Insert into the query";
    item.innerHTML = `<span>${escapeHTML(f.name)}</span><span class="type">${escapeHTML(f.type)}</span>`;
    item.addEventListener("click", () => editor.insert(/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name) ? f.name : `['${f.name}']`));
    ul.appendChild(item);
  }
  li.appendChild(ul);
  li.classList.add("open");
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
  $("run").disabled = true;
  showError("");
  setStatus("Running…", { state: "running" });
  const bounds = range.bounds();
  const began = performance.now();
  try {
    const res = await b.query(apl, bounds);
    const ms = performance.now() - began;
    table.show(res);
    const t = table.table;
    const kind = drawChart($("chart"), t);
    const rows = table.rowCount();
    state.last = { apl, bounds, mode: state.mode, ms, rows, chart: kind, result: res };
    $("save").disabled = false;
    setStatus(`${rows.toLocaleString("en")} row${rows === 1 ? "" : "s"} in ${ms.toFixed(0)} ms · ${state.mode}`,
      { state: "done", ms: ms.toFixed(1), rows });
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
    setStatus("Failed", { state: "error" });
  } finally {
    state.running = false;
    $("run").disabled = false;
  }
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
  try {
    const r = await state.offline.loadFile(file);
    const ms = performance.now() - began;
    const failed = r.failed ? `, ${r.failed} failed (${r.failures.map((f) => f.error).slice(0, 3).join("; ")})` : "";
    setStatus(`Loaded ${r.ingested.toLocaleString("en")} events into ['${r.dataset}'] as ${r.format} in ${ms.toFixed(0)} ms${failed}`,
      { state: "loaded", ms: ms.toFixed(1), dataset: r.dataset });
    if (!editor.value.trim() || /^\['[^']*'\]\n\| take 100$/.test(editor.value)) {
      editor.value = `['${r.dataset}']\n| take 100`;
    }
    await refreshDatasets();
  } catch (e) {
    showError(`Cannot load ${file.name}: ${e.message}`);
    setStatus("Failed", { state: "error" });
  }
}

function setupDrop() {
  const overlay = $("drop");
  let depth = 0;
  document.addEventListener("dragenter", (e) => {
    if ([...(e.dataTransfer?.types || [])].includes("Files")) {
      depth++;
      overlay.hidden = false;
    }
  });
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

// --- Start ------------------------------------------------------------------

$("signin").addEventListener("submit", signIn);
$("signout").addEventListener("click", signOut);
$("mode-server").addEventListener("click", () => setMode("server"));
$("mode-offline").addEventListener("click", () => setMode("offline"));
$("refresh").addEventListener("click", refreshDatasets);
$("run").addEventListener("click", run);
$("save").addEventListener("click", saveResult);
setupDrop();
restoreAuth();
setMode("server");

// The console's state, for tests and for poking at from devtools.
window.apliteConsole = { state, run, editor, range, openFile, setMode, engineStats };
document.body.dataset.ready = "true";
