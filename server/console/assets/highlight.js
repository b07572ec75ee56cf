// APL syntax highlighting: a small tokenizer whose only job is colour, so
// it is forgiving (an unterminated string runs to the end of the line)
// and never fails.

const KEYWORDS = new Set([
  "where", "filter", "summarize", "extend", "extend-valid", "project", "project-away", "project-keep",
  "project-rename", "project-reorder", "take", "limit", "sort", "order", "by", "asc", "desc", "nulls",
  "first", "last", "top", "count", "distinct", "join", "lookup", "union", "let", "datatable", "print",
  "parse", "parse-kv", "parse-where", "mv-expand", "make-series", "search", "getschema", "sample",
  "on", "kind", "with", "and", "or", "not", "in", "has", "has_cs", "has_any", "has_all", "contains",
  "contains_cs", "startswith", "startswith_cs", "endswith", "endswith_cs", "matches", "regex",
  "between", "from", "to", "step", "true", "false", "null", "inner", "innerunique", "leftouter",
  "rightouter", "fullouter", "leftanti", "rightanti", "leftsemi", "rightsemi", "typeof", "dynamic",
  "as", "isfuzzy",
]);

const isIdentStart = (c) => /[A-Za-z_$]/.test(c);
const isIdent = (c) => /[A-Za-z0-9_$]/.test(c);
const isDigit = (c) => c >= "0" && c <= "9";

// tokenize returns [{s, e, cls}] covering every character of text in
// order; cls is "" for plain text.
export function tokenize(text) {
  const out = [];
  let i = 0;
  const push = (s, e, cls) => {
    const last = out[out.length - 1];
    if (last && last.cls === cls && last.e === s) last.e = e;
    else out.push({ s, e, cls });
  };
  while (i < text.length) {
    const c = text[i];
    const s = i;
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      push(s, i, "com");
    } else if (c === "[" && (text[i + 1] === "'" || text[i + 1] === '"')) {
      i = endOfString(text, i + 1);
      if (text[i] === "]") i++;
      push(s, i, "ds");
    } else if (c === "'" || c === '"' || ((c === "@" || c === "h" || c === "H") && (text[i + 1] === "'" || text[i + 1] === '"'))) {
      i = endOfString(text, c === "'" || c === '"' ? i : i + 1);
      push(s, i, "str");
    } else if (isDigit(c) && !(s > 0 && isIdent(text[s - 1]))) {
      while (i < text.length && /[0-9.eE]/.test(text[i])) i++;
      while (i < text.length && /[a-z]/.test(text[i])) i++; // timespan units: 5m, 1.5h, 10ms
      push(s, i, "num");
    } else if (isIdentStart(c)) {
      i = wordEnd(text, i);
      let word = text.slice(s, i);
      // Operators with a dash (project-away) are one word when known.
      while (text[i] === "-" && isIdentStart(text[i + 1] || "")) {
        const e = wordEnd(text, i + 1);
        if (!KEYWORDS.has(word + text.slice(i, e))) break;
        word += text.slice(i, e);
        i = e;
      }
      let j = i;
      while (text[j] === " ") j++;
      push(s, i, KEYWORDS.has(word) ? "kw" : text[j] === "(" ? "fn" : "");
    } else if (c === "|") {
      i++;
      push(s, i, "pipe");
    } else {
      i++;
      push(s, i, "");
    }
  }
  return out;
}

function wordEnd(text, i) {
  while (i < text.length && isIdent(text[i])) i++;
  return i;
}

// endOfString returns the index after the string starting at quote index
// q (verbatim @'' strings have no escapes, which does not matter here).
function endOfString(text, q) {
  const quote = text[q];
  let i = q + 1;
  while (i < text.length && text[i] !== quote && text[i] !== "\n") {
    if (text[i] === "\\") i++;
    i++;
  }
  return Math.min(i + 1, text.length);
}

export function escapeHTML(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// offsetOf converts a 1-based line and column into an index into text.
export function offsetOf(text, line, col) {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return Math.min(off + Math.max(col - 1, 0), text.length);
}

// errorSpan returns [start, end) of the token at offset: a word or number
// when the error points at one, else one character.
export function errorSpan(text, offset) {
  if (offset >= text.length) return [text.length, text.length];
  let e = offset;
  while (e < text.length && isIdent(text[e])) e++;
  return [offset, Math.max(e, offset + 1)];
}

// render returns the highlighted HTML of text, with the characters of
// err ([start, end), or null) wrapped in a span.err-mark. A mark at the
// very end of the text (a query cut short) underlines a blank.
export function render(text, err) {
  let html = "";
  const wrap = (s, e, cls) => {
    const t = escapeHTML(text.slice(s, e));
    return cls ? `<span class="${cls}">${t}</span>` : t;
  };
  for (const t of tokenize(text)) {
    if (!err || t.e <= err[0] || t.s >= err[1]) {
      html += wrap(t.s, t.e, t.cls);
      continue;
    }
    const a = Math.max(t.s, err[0]);
    const b = Math.min(t.e, err[1]);
    html += wrap(t.s, a, t.cls) + `<span class="err-mark">${wrap(a, b, t.cls)}</span>` + wrap(b, t.e, t.cls);
  }
  if (err && err[0] >= text.length) html += '<span class="err-mark"> </span>';
  // A trailing newline needs a character after it to take up a line, as
  // it does in the textarea.
  return html + " ";
}
