// Exploring without writing APL first: a field's top values (a click adds
// a where clause) and an event's detail pane, a collapsible JSON tree
// whose fields can be copied or turned into filters.

import { escapeHTML } from "./highlight.js";
import { showTime } from "./tz.js";

// fieldRef is how APL names a field: bare when it can be, ['x'] otherwise.
export function fieldRef(name) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `['${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
}

// literal renders a JSON value as an APL literal.
export function literal(v, type) {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (type === "datetime") return `datetime(${v})`;
  if (typeof v === "string") return JSON.stringify(v);
  return `dynamic(${JSON.stringify(v)})`;
}

// filterClause is the where clause that keeps rows whose field equals v.
export function filterClause(name, v, type, negate = false) {
  const ref = fieldRef(name);
  if (v === null || v === undefined) return `| where ${negate ? "isnotnull" : "isnull"}(${ref})`;
  if (typeof v === "object") return `| where tostring(${ref}) ${negate ? "!=" : "=="} ${JSON.stringify(JSON.stringify(v))}`;
  return `| where ${ref} ${negate ? "!=" : "=="} ${literal(v, type)}`;
}

// addFilter puts a where clause right after the query's source (and the
// where stages that follow it), where engine's parser says it goes, as
// Axiom and Grafana do: at the end it would filter only what a take kept,
// or fail after a summarize. A query that does not parse gets it at the
// end, where the error it already has is reported on Run.
export async function addFilter(editor, clause, engine) {
  const text = editor.value;
  let at = -1;
  try {
    at = await engine.filterAt(text);
  } catch {
    at = -1;
  }
  if (at < 0 || at > text.length) {
    editor.value = text.trimEnd() + "\n" + clause;
    return;
  }
  const rest = text.slice(at);
  const m = /^[ \t]*(?=\|)/.exec(rest); // a stage on the same line goes on a line of its own
  editor.value = text.slice(0, at) + "\n" + clause + (m ? "\n" + rest.slice(m[0].length) : rest);
}

// topValues asks the backend for a field's 10 most frequent values in
// the range: [{value, count}].
export async function topValues(backend, dataset, field, bounds) {
  const ref = fieldRef(field);
  const apl = `['${dataset}'] | summarize count_ = count() by ${ref} | top 10 by count_ desc`;
  const res = await backend.query(apl, bounds);
  const t = (res.tables || []).find((x) => x.name !== "_totals") || res.tables[0];
  const vi = t.fields.findIndex((f) => f.name === field || f.name === ref);
  const ci = t.fields.findIndex((f) => f.name === "count_");
  const out = [];
  for (let r = 0; r < (t.columns[0] || []).length; r++) out.push({ value: t.columns[vi >= 0 ? vi : 0][r], count: t.columns[ci][r] });
  return out;
}

// renderValues draws top values under a field; pick(value) adds a filter.
export function renderValues(root, field, values, pick) {
  const ul = document.createElement("ul");
  ul.className = "values";
  ul.dataset.field = field;
  const total = values.reduce((a, v) => a + v.count, 0) || 1;
  for (const v of values) {
    const li = document.createElement("li");
    const shown = v.value === null ? "null" : typeof v.value === "object" ? JSON.stringify(v.value) : String(v.value);
    li.dataset.value = shown;
    li.title = "Add a where clause for this value";
    li.innerHTML = `<span class="v">${escapeHTML(shown)}</span><span class="c">${v.count.toLocaleString("en")}</span>` +
      `<span class="pct"></span>`;
    // Set through the CSSOM, which the page's CSP (style-src 'self')
    // allows; a style attribute in the markup is blocked.
    li.querySelector(".pct").style.width = `${Math.round((100 * v.count) / total)}%`;
    li.addEventListener("click", (e) => {
      e.stopPropagation();
      pick(v.value);
    });
    ul.appendChild(li);
  }
  if (!values.length) ul.innerHTML = '<li class="note">No values in this range.</li>';
  root.appendChild(ul);
  return ul;
}

// DetailPane shows one event as a collapsible JSON tree.
export class DetailPane {
  constructor(root, { onFilter }) {
    this.root = root;
    this.onFilter = onFilter;
    root.querySelector(".close").addEventListener("click", () => this.hide());
  }

  show(row, types) {
    this.types = types || {};
    const body = this.root.querySelector(".tree");
    body.innerHTML = "";
    body.appendChild(this.node("", row, 0));
    this.root.hidden = false;
    this.row = row;
  }

  hide() {
    this.root.hidden = true;
    this.row = null;
  }

  // node renders one value: objects and arrays as <details>, leaves with
  // copy and filter buttons (top-level fields only can be filtered).
  node(key, v, depth, path = key) {
    if (v !== null && typeof v === "object") {
      const d = document.createElement("details");
      d.open = depth < 2;
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
      d.innerHTML = `<summary><span class="k">${escapeHTML(key || "event")}</span> <span class="t">${Array.isArray(v) ? `[${v.length}]` : `{${entries.length}}`}</span></summary>`;
      for (const [k, x] of entries) d.appendChild(this.node(k, x, depth + 1, path ? `${path}.${k}` : k));
      return d;
    }
    const div = document.createElement("div");
    div.className = "leaf";
    div.dataset.path = path;
    const type = this.types[path];
    const shown = v === null ? "null" : type === "datetime" ? `${showTime(v)}` : typeof v === "string" ? JSON.stringify(v) : String(v);
    div.innerHTML = `<span class="k">${escapeHTML(key)}</span> <span class="v ${v === null ? "null" : typeof v}">${escapeHTML(shown)}</span>` +
      `<button type="button" class="copy" title="Copy the value">copy</button>` +
      (depth === 1 ? `<button type="button" class="filter" title="Add a where clause for this value">filter</button>` : "");
    div.querySelector(".copy").addEventListener("click", () => copyText(typeof v === "string" ? v : JSON.stringify(v)));
    const f = div.querySelector(".filter");
    if (f) f.addEventListener("click", () => this.onFilter(path, v, type));
    return div;
  }
}

// copyText copies to the clipboard, falling back to a hidden textarea
// where the clipboard API is not allowed (plain http, some browsers).
export async function copyText(s) {
  window.apliteConsole && (window.apliteConsole.copied = s);
  try {
    await navigator.clipboard.writeText(s);
  } catch {
    const ta = document.createElement("textarea");
    ta.value = s;
    document.body.appendChild(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  }
}
