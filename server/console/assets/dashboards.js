// Dashboards as Axiom's API keeps them (/v2/dashboards): a list, one
// dashboard opened with a chart (or a table's row count) per chart of its
// document, each chart's query run over the console's time range, and the
// editor's query added to a dashboard as a new chart.

import { escapeHTML } from "./highlight.js";
import { drawChart } from "./chart.js";

// renderDashboards lists the org's dashboards under root; ui is
// {query(), bounds(), open(apl)}.
export async function renderDashboards(root, backend, ui) {
  if (!backend || !backend.request) {
    root.innerHTML = '<p class="note">Sign in to see the dashboards.</p>';
    return;
  }
  // Only the latest render draws: an earlier one answering late would
  // replace a dashboard the user just opened.
  const gen = (root.renders = (root.renders || 0) + 1);
  root.dataset.busy = "true";
  let list;
  try {
    list = (await backend.request("GET", "/v2/dashboards")) || [];
  } catch (e) {
    list = e;
  }
  if (root.renders !== gen) return;
  root.dataset.busy = "false";
  if (list instanceof Error) {
    root.innerHTML = `<p class="note">Cannot list dashboards: ${escapeHTML(list.message)}</p>`;
    return;
  }
  const names = list.map((d) => ({ uid: d.uid, name: (d.dashboard && d.dashboard.name) || d.uid }));
  root.innerHTML = '<form class="add-chart"><input name="name" placeholder="dashboard name" list="dashboard-names" aria-label="Dashboard">' +
    '<datalist id="dashboard-names">' + names.map((d) => `<option value="${escapeHTML(d.name)}"></option>`).join("") + "</datalist>" +
    '<button type="submit" title="Add the query in the editor to this dashboard (a new one if none has that name)">Add the query</button></form>' +
    '<p class="note dash-note"></p>' +
    (names.length ? '<ul class="dashboards">' + names.map((d) => `<li data-uid="${escapeHTML(d.uid)}"><button type="button" class="pick">${escapeHTML(d.name)}</button></li>`).join("") + "</ul>"
      : '<p class="note">No dashboards yet.</p>');
  const redraw = () => renderDashboards(root, backend, ui);
  root.querySelector(".add-chart").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = e.target.elements.name.value.trim();
    const apl = ui.query();
    const note = root.querySelector(".dash-note");
    if (!name || !apl) {
      note.textContent = "Name a dashboard and write a query first.";
      return;
    }
    try {
      await addChart(backend, list.find((d) => d.dashboard && d.dashboard.name === name), name, apl);
    } catch (err) {
      note.textContent = `Not saved: ${err.message}`;
      return;
    }
    await redraw();
    root.querySelector(".dash-note").textContent = `Added to ${name}.`;
  });
  for (const li of root.querySelectorAll(".dashboards li")) {
    li.querySelector(".pick").addEventListener("click", () => openDashboard(li, backend, list.find((d) => d.uid === li.dataset.uid), ui));
  }
}

// addChart appends a chart of apl to dashboard d (a new dashboard named
// name when d is undefined), in Axiom's dashboard document shape.
async function addChart(backend, d, name, apl) {
  const id = crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2); // randomUUID: secure contexts only
  const chart = { id, name: apl.replace(/\s+/g, " ").slice(0, 60), type: "TimeSeries", query: { apl } };
  if (!d) {
    const doc = { name, owner: "", description: "", charts: [chart], layout: [{ i: chart.id, x: 0, y: 0, w: 12, h: 4 }],
      refreshTime: 60, schemaVersion: 2, timeWindowStart: "qr-now-1h", timeWindowEnd: "qr-now" };
    return backend.request("POST", "/v2/dashboards", { dashboard: doc });
  }
  const doc = { ...d.dashboard, charts: [...(d.dashboard.charts || []), chart] };
  doc.layout = [...(d.dashboard.layout || []), { i: chart.id, x: 0, y: 4 * (doc.charts.length - 1), w: 12, h: 4 }];
  return backend.request("PUT", `/v2/dashboards/uid/${encodeURIComponent(d.uid)}`, { dashboard: doc, version: d.version, overwrite: true });
}

// openDashboard runs each chart's query and draws it under li.
async function openDashboard(li, backend, d, ui) {
  const open = li.querySelector(".dash");
  if (open) {
    open.remove();
    return;
  }
  const box = document.createElement("div");
  box.className = "dash";
  li.appendChild(box);
  for (const c of (d.dashboard && d.dashboard.charts) || []) {
    const apl = c.query && c.query.apl;
    const item = document.createElement("div");
    item.className = "dash-chart";
    item.innerHTML = `<div class="dash-head"><span class="name">${escapeHTML(c.name || "")}</span><button type="button" class="open">Open</button></div><div class="chart"></div><p class="note"></p>`;
    item.querySelector(".open").addEventListener("click", () => ui.open(apl || ""));
    box.appendChild(item);
    if (!apl) {
      item.querySelector(".note").textContent = "This chart has no APL query.";
      continue;
    }
    try {
      const res = await backend.query(apl, ui.bounds());
      const t = (res.tables || []).find((x) => x.name !== "_totals") || (res.tables || [])[0];
      const kind = drawChart(item.querySelector(".chart"), t);
      item.dataset.kind = kind || "";
      if (!kind) item.querySelector(".note").textContent = `${t && t.columns.length ? t.columns[0].length : 0} rows`;
    } catch (e) {
      item.dataset.kind = "error";
      item.querySelector(".note").textContent = e.message;
    }
  }
}
