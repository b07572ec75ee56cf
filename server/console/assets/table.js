// The results table: one table of a tabular result (column-major, as the
// API sends it) shown a page at a time.

import { escapeHTML } from "./highlight.js";
import { showTime } from "./tz.js";

export const PAGE_SIZE = 50;

export class ResultsTable {
  // onRow(rowObject, index) runs when a row is clicked (the detail pane).
  constructor(root, { onRow } = {}) {
    this.root = root;
    this.onRow = onRow;
    this.result = null;
    this.tableIndex = 0;
    this.page = 0;
    // Columns hidden until asked for, as Axiom hides _sysTime (the
    // ingest time, rarely what a user looks for).
    this.hidden = new Set(["_sysTime"]);
    this.showHidden = false;
  }

  show(result) {
    this.result = result;
    const tables = result ? result.tables || [] : [];
    this.tableIndex = Math.max(0, tables.findIndex((t) => t.name !== "_totals"));
    this.page = 0;
    this.paint();
  }

  get table() {
    return this.result && this.result.tables ? this.result.tables[this.tableIndex] : null;
  }

  rowCount() {
    const t = this.table;
    return t && t.columns.length ? t.columns[0].length : 0;
  }

  paint() {
    const t = this.table;
    if (!t) {
      this.root.innerHTML = "";
      return;
    }
    const n = this.rowCount();
    const pages = Math.max(1, Math.ceil(n / PAGE_SIZE));
    this.page = Math.min(this.page, pages - 1);
    const from = this.page * PAGE_SIZE;
    const to = Math.min(n, from + PAGE_SIZE);
    let html = "";
    // A pick only between tables a user would look at: the _totals of a
    // summarize is not one (it made a stray "Table: 0" selector).
    const picks = this.result.tables.map((x, i) => [x, i]).filter(([x]) => x.name !== "_totals");
    if (picks.length > 1) {
      html += '<div class="tables">Table: <select class="table-pick">' +
        picks.map(([x, i]) => `<option value="${i}"${i === this.tableIndex ? " selected" : ""}>${escapeHTML(x.name)}</option>`).join("") +
        "</select></div>";
    }
    const cols = t.fields.map((f, j) => j).filter((j) => this.showHidden || !this.hidden.has(t.fields[j].name));
    const hiddenN = t.fields.length - cols.length;
    html += this.pager(n, from, to, pages);
    if (hiddenN || this.showHidden && t.fields.some((f) => this.hidden.has(f.name))) {
      html += `<button type="button" class="toggle-hidden">${this.showHidden ? "Hide _sysTime" : `Show ${hiddenN} hidden column${hiddenN === 1 ? "" : "s"}`}</button>`;
    }
    html += "<table><thead><tr>" +
      cols.map((j) => `<th title="${escapeHTML(t.fields[j].type)}">${escapeHTML(t.fields[j].name)}</th>`).join("") +
      "</tr></thead><tbody>";
    for (let r = from; r < to; r++) {
      html += `<tr data-row="${r}">` + cols.map((j) => cell(t.columns[j][r], t.fields[j].type)).join("") + "</tr>";
    }
    html += "</tbody></table>";
    if (n === 0) html += '<p class="note">No rows.</p>';
    this.root.innerHTML = html;
    this.root.querySelectorAll(".prev, .next").forEach((b) =>
      b.addEventListener("click", () => {
        this.page += b.classList.contains("next") ? 1 : -1;
        this.paint();
      }));
    this.root.querySelectorAll("tbody tr").forEach((tr) =>
      tr.addEventListener("click", () => this.onRow && this.onRow(this.row(+tr.dataset.row), +tr.dataset.row)));
    const toggle = this.root.querySelector(".toggle-hidden");
    if (toggle) toggle.addEventListener("click", () => {
      this.showHidden = !this.showHidden;
      this.paint();
    });
    const pick = this.root.querySelector(".table-pick");
    if (pick) pick.addEventListener("change", () => {
      this.tableIndex = +pick.value;
      this.page = 0;
      this.paint();
    });
  }

  // row returns row r of the shown table as {field: value}.
  row(r) {
    const t = this.table;
    const out = {};
    t.fields.forEach((f, j) => { out[f.name] = t.columns[j][r]; });
    return out;
  }

  pager(n, from, to, pages) {
    if (n <= PAGE_SIZE) return `<div class="pager"><span class="range">${n} row${n === 1 ? "" : "s"}</span></div>`;
    return `<div class="pager"><button class="prev" ${this.page === 0 ? "disabled" : ""}>‹ Prev</button>` +
      `<span class="range">${from + 1}–${to} of ${n}</span>` +
      `<button class="next" ${this.page >= pages - 1 ? "disabled" : ""}>Next ›</button></div>`;
  }
}

function cell(v, type) {
  if (v === null || v === undefined) return '<td class="null">null</td>';
  if (typeof v === "object") {
    const s = JSON.stringify(v);
    return `<td title="${escapeHTML(s)}">${escapeHTML(s)}</td>`;
  }
  const s = String(v);
  const cls = typeof v === "number" ? "num" : type === "datetime" ? "time" : "";
  const shown = type === "datetime" ? showTime(s) : s;
  return `<td class="${cls}" title="${escapeHTML(s)}">${escapeHTML(shown)}</td>`;
}
