// The monitors of the org: name, kind, whether they are enabled, their
// alert state and their last runs, as the server reports them; each can
// be opened (its query into the editor), edited, disabled or enabled, and
// a new one made from the editor's query (threshold monitors; the
// server's /v2/monitors takes the whole monitor on PUT).

import { escapeHTML } from "./highlight.js";
import { showTime } from "./tz.js";

// renderMonitors draws the list; ui is {open(apl), query()}: open puts a
// monitor's query in the editor, query is the editor's text.
export async function renderMonitors(root, backend, ui = {}) {
  if (!backend || !backend.monitors) {
    root.innerHTML = '<p class="note">Sign in to see the monitors.</p>';
    return;
  }
  let list;
  try {
    list = await backend.monitors();
  } catch (e) {
    root.innerHTML = `<p class="note">Cannot list monitors: ${escapeHTML(e.message)}</p>`;
    return;
  }
  const redraw = () => renderMonitors(root, backend, ui);
  const newButton = '<button type="button" class="new-monitor" title="A threshold monitor on the query in the editor">New monitor from the query</button>';
  if (!list.length) {
    root.innerHTML = newButton + '<p class="note">No monitors yet.</p>';
    wire(root, backend, ui, list, redraw);
    return;
  }
  const rows = await Promise.all(list.map(async (m) => {
    let runs = [];
    try {
      runs = (await backend.request("GET", `/v2/monitors/${encodeURIComponent(m.id)}/history`)) || [];
    } catch {
      runs = []; // a server without run history
    }
    if (!Array.isArray(runs)) runs = runs.runs || [];
    return { m, runs: runs.slice(-5).reverse() };
  }));
  root.innerHTML = newButton + '<ul class="monitors">' + rows.map(({ m, runs }) => {
    const state = m.alertState || m.state || (runs[0] && (runs[0].state || runs[0].alertState)) || "unknown";
    return `<li data-id="${escapeHTML(m.id)}" data-state="${escapeHTML(String(state))}">` +
      `<div class="head"><span class="name">${escapeHTML(m.name)}</span><span class="state ${escapeHTML(String(state).toLowerCase())}">${escapeHTML(String(state))}</span></div>` +
      `<div class="meta">${escapeHTML(m.type || "")} · every ${escapeHTML(String(m.intervalMinutes || "?"))} min${m.disabled ? " · disabled" : ""}</div>` +
      '<div class="actions"><button type="button" class="open">Open query</button><button type="button" class="edit">Edit</button>' +
      `<button type="button" class="toggle">${m.disabled ? "Enable" : "Disable"}</button></div>` +
      (runs.length ? '<ol class="runs">' + runs.map((r) =>
        `<li>${escapeHTML(showTime(r.time || r.at || r.ranAt || ""))} ${escapeHTML(String(r.state || r.alertState || ""))}${r.value !== undefined ? " · " + escapeHTML(String(r.value)) : ""}${r.error ? " · " + escapeHTML(r.error) : ""}</li>`).join("") + "</ol>" : '<div class="note">No runs recorded.</div>') +
      "</li>";
  }).join("") + "</ul>";
  wire(root, backend, ui, list, redraw);
}

// wire connects the list's buttons.
function wire(root, backend, ui, list, redraw) {
  root.querySelector(".new-monitor").addEventListener("click", () =>
    editForm(root, backend, { name: "", type: "Threshold", operator: "Above", threshold: 0, intervalMinutes: 5, rangeMinutes: 5,
      aplQuery: ui.query ? ui.query() : "" }, redraw));
  for (const li of root.querySelectorAll(".monitors > li")) {
    const m = list.find((x) => x.id === li.dataset.id);
    li.querySelector(".open").addEventListener("click", () => ui.open && ui.open(m.aplQuery || ""));
    li.querySelector(".edit").addEventListener("click", () => editForm(li, backend, m, redraw));
    li.querySelector(".toggle").addEventListener("click", async () => {
      await save(li, backend, { ...m, disabled: !m.disabled }, redraw);
    });
  }
}

// save creates (no id) or replaces a monitor, then redraws; the server's
// refusal is shown where the user acted.
async function save(where, backend, m, redraw) {
  try {
    if (m.id) await backend.request("PUT", `/v2/monitors/${encodeURIComponent(m.id)}`, m);
    else await backend.request("POST", "/v2/monitors", m);
  } catch (e) {
    let note = where.querySelector(".monitor-error");
    if (!note) {
      note = document.createElement("p");
      note.className = "monitor-error note";
      where.appendChild(note);
    }
    note.textContent = `Not saved: ${e.message}`;
    return false;
  }
  await redraw();
  return true;
}

// editForm shows a monitor's editable fields under where.
function editForm(where, backend, m, redraw) {
  const old = where.querySelector(".monitor-form");
  if (old) old.remove();
  const f = document.createElement("form");
  f.className = "monitor-form";
  const ops = ["Above", "AboveOrEqual", "Below", "BelowOrEqual"];
  f.innerHTML = `<label>Name <input name="name" required></label>` +
    `<label>Query <textarea name="aplQuery" rows="3" spellcheck="false"></textarea></label>` +
    `<label>Alert when <select name="operator">${ops.map((o) => `<option>${o}</option>`).join("")}</select></label>` +
    `<label>Threshold <input name="threshold" type="number" step="any"></label>` +
    `<label>Every (min) <input name="intervalMinutes" type="number" min="1"></label>` +
    `<label>Range (min) <input name="rangeMinutes" type="number" min="1"></label>` +
    `<label><input name="disabled" type="checkbox"> Disabled</label>` +
    '<div class="actions"><button type="submit">Save</button><button type="button" class="cancel">Cancel</button></div>';
  for (const k of ["name", "aplQuery", "threshold", "intervalMinutes", "rangeMinutes"]) f.elements[k].value = m[k] ?? "";
  f.elements.operator.value = ops.includes(m.operator) ? m.operator : "Above";
  f.elements.disabled.checked = !!m.disabled;
  f.querySelector(".cancel").addEventListener("click", () => f.remove());
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    const v = (k) => f.elements[k].value;
    await save(f, backend, { ...m, name: v("name"), aplQuery: v("aplQuery"), operator: v("operator"), threshold: +v("threshold"),
      intervalMinutes: +v("intervalMinutes"), rangeMinutes: +v("rangeMinutes"), disabled: f.elements.disabled.checked }, redraw);
  });
  where.appendChild(f);
  f.elements.name.focus();
}
