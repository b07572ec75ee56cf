// Completion in the APL editor: dataset names after `['`, operators after
// `|`, and otherwise the fields of the datasets the query reads and the
// engine's functions (with their signatures) and keywords. Arrow keys
// move, Tab or Enter takes, Escape closes.

import { escapeHTML } from "./highlight.js";

export const OPERATORS = ["where", "extend", "project", "project-away", "project-keep", "project-rename", "project-reorder",
  "summarize", "sort by", "order by", "take", "limit", "top", "count", "distinct", "join", "lookup", "union", "parse",
  "parse-kv", "mv-expand", "make-series", "search", "getschema", "sample", "redact", "extend-valid", "as"];
const KEYWORDS = ["by", "and", "or", "not", "asc", "desc", "between", "in", "has", "contains", "startswith", "endswith",
  "matches regex", "nulls first", "nulls last", "true", "false", "ago(1h)", "now()", "bin(_time, 1m)", "bin_auto(_time)"];

export class Completer {
  // source() returns {datasets: [name], fields: {dataset: [{name, type}]},
  // functions: [{name, signature, kind, doc}]}.
  constructor(editor, source) {
    this.editor = editor;
    this.area = editor.area;
    this.source = source;
    this.box = document.createElement("ul");
    this.box.className = "complete";
    this.box.hidden = true;
    // After the editor, not inside it: the editor clips what overflows it.
    editor.area.parentElement.insertAdjacentElement("afterend", this.box);
    this.items = [];
    this.sel = 0;
    this.area.addEventListener("input", () => this.update());
    this.area.addEventListener("keydown", (e) => this.key(e), true);
    this.area.addEventListener("blur", () => setTimeout(() => this.close(), 150));
  }

  // word is the identifier being typed before the caret, and what precedes it.
  context() {
    const pos = this.area.selectionStart;
    const before = this.area.value.slice(0, pos);
    const m = /[A-Za-z0-9_.\-]*$/.exec(before);
    const word = m[0];
    const head = before.slice(0, before.length - word.length);
    return { word, head, pos };
  }

  candidates() {
    const { word, head } = this.context();
    const src = this.source();
    if (/\[\s*['"]$/.test(head)) {
      return src.datasets.filter((d) => d.startsWith(word)).map((d) => ({ text: d, label: d, kind: "dataset" }));
    }
    const lower = word.toLowerCase();
    if (/\|\s*$/.test(head)) { // a new stage: every operator, before a letter is typed too
      return OPERATORS.filter((o) => o.startsWith(lower)).map((o) => ({ text: o, label: o, kind: "operator" }));
    }
    const cmp = /([A-Za-z_][A-Za-z0-9_.]*|\['[^']+'\])\s*(==|!=)\s*("?)$/.exec(head);
    if (cmp) return this.values(cmp[1].replace(/^\['|'\]$/g, ""), word, cmp[3]);
    if (!word) return [];
    const out = [];
    const used = new Set();
    for (const ds of src.datasets) {
      if (!this.area.value.includes(ds)) continue;
      if (!src.fields[ds] && src.fetchFields) {
        src.fetchFields(ds).then(() => this.update()); // completes again once known
        continue;
      }
      for (const f of src.fields[ds] || []) {
        if (f.name.toLowerCase().startsWith(lower) && !used.has(f.name)) {
          used.add(f.name);
          const text = /^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name) ? f.name : `['${f.name}']`;
          out.push({ text, label: f.name, kind: "field", hint: f.type });
        }
      }
    }
    for (const f of src.functions) {
      if (f.name.startsWith(lower)) out.push({ text: f.name + "(", label: f.name, kind: f.kind, hint: f.signature, doc: f.doc });
    }
    for (const k of KEYWORDS) if (k.startsWith(lower) && k !== lower) out.push({ text: k, label: k, kind: "keyword" });
    return out.slice(0, 12);
  }

  // values offers a field's top values after `field == `, from what the
  // field's list showed or asked of the backend once (then completes again).
  values(field, word, quote) {
    const src = this.source();
    const vals = src.values[field];
    if (!vals) {
      if (src.fetchValues) src.fetchValues(field, this.area.value).then((ok) => ok && this.update());
      return [];
    }
    return vals.filter((v) => v.value !== null && String(v.value).startsWith(word)).slice(0, 12).map((v) => {
      const s = String(v.value);
      const text = typeof v.value === "string" ? (quote ? `${s}"` : JSON.stringify(s)) : s;
      return { text, label: s, kind: "value", hint: v.count.toLocaleString("en") };
    });
  }

  update() {
    this.items = this.candidates();
    this.sel = 0;
    if (!this.items.length) return this.close();
    this.paint();
  }

  paint() {
    this.box.innerHTML = this.items.map((c, i) =>
      `<li class="${i === this.sel ? "on" : ""}" data-kind="${c.kind}" title="${escapeHTML(c.doc || "")}">` +
      `<span class="label">${escapeHTML(c.label)}</span><span class="hint">${escapeHTML(c.hint || c.kind)}</span></li>`).join("");
    this.box.querySelectorAll("li").forEach((li, i) => li.addEventListener("mousedown", (e) => {
      e.preventDefault();
      this.sel = i;
      this.take();
    }));
    this.box.hidden = false;
  }

  close() {
    this.box.hidden = true;
    this.items = [];
  }

  key(e) {
    if (this.box.hidden || !this.items.length) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      this.sel = (this.sel + (e.key === "ArrowDown" ? 1 : this.items.length - 1)) % this.items.length;
      this.paint();
    } else if ((e.key === "Tab" || e.key === "Enter") && !e.ctrlKey && !e.metaKey) {
      this.take();
    } else if (e.key === "Escape") {
      this.close();
    } else {
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
  }

  take() {
    const c = this.items[this.sel];
    if (!c) return;
    const { word, pos } = this.context();
    this.area.setRangeText(c.text, pos - word.length, pos, "end");
    this.editor.paint();
    this.close();
  }
}
