// The monitors of the org: name, kind, whether they are enabled, their
// alert state and their last runs, as the server reports them.

import { escapeHTML } from "./highlight.js";
import { showTime } from "./tz.js";

export async function renderMonitors(root, backend) {
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
  if (!list.length) {
    root.innerHTML = '<p class="note">No monitors yet.</p>';
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
  root.innerHTML = '<ul class="monitors">' + rows.map(({ m, runs }) => {
    const state = m.alertState || m.state || (runs[0] && (runs[0].state || runs[0].alertState)) || "unknown";
    return `<li data-id="${escapeHTML(m.id)}" data-state="${escapeHTML(String(state))}">` +
      `<div class="head"><span class="name">${escapeHTML(m.name)}</span><span class="state ${escapeHTML(String(state).toLowerCase())}">${escapeHTML(String(state))}</span></div>` +
      `<div class="meta">${escapeHTML(m.type || "")} · every ${escapeHTML(String(m.intervalMinutes || "?"))} min${m.disabled ? " · disabled" : ""}</div>` +
      (runs.length ? '<ol class="runs">' + runs.map((r) =>
        `<li>${escapeHTML(showTime(r.time || r.at || r.ranAt || ""))} ${escapeHTML(String(r.state || r.alertState || ""))}${r.value !== undefined ? " · " + escapeHTML(String(r.value)) : ""}${r.error ? " · " + escapeHTML(r.error) : ""}</li>`).join("") + "</ol>" : '<div class="note">No runs recorded.</div>') +
      "</li>";
  }).join("") + "</ul>";
}
