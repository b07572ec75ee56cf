// Charts drawn as SVG by hand: a line per series for time-binned results
// (the table has buckets and a _time column) and horizontal bars for
// results grouped by other keys. Raw events get no chart.

import { showTime } from "./tz.js";

const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#65a30d", "#ea580c", "#475569"];
const MAX_SERIES = 10;
const MAX_BARS = 20;

// chartKind says which chart suits a table: "time", "bar" or null.
export function chartKind(t) {
  if (!t || !t.columns || !t.columns.length || !t.columns[0].length) return null;
  const numeric = valueColumns(t);
  if (!numeric.length) return null;
  const time = t.fields.findIndex((f) => f.name === "_time");
  if (t.buckets && time >= 0) return "time";
  if ((t.groups || []).length) return "bar";
  return null;
}

// valueColumns are the aggregate columns holding numbers.
function valueColumns(t) {
  const out = [];
  t.fields.forEach((f, i) => {
    if (f.agg && t.columns[i].some((v) => typeof v === "number")) out.push(i);
  });
  return out;
}

// keyColumns are the group columns other than _time.
function keyColumns(t) {
  const groups = new Set((t.groups || []).map((g) => g.name));
  const out = [];
  t.fields.forEach((f, i) => {
    if (f.name !== "_time" && (groups.has(f.name) || (!f.agg && groups.size === 0 && f.type !== "datetime"))) out.push(i);
  });
  return out;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function text(parent, x, y, s, attrs) {
  const t = el("text", { x, y, ...attrs }, parent);
  t.textContent = s;
  return t;
}

// niceTicks returns about n round values covering [0, max].
export function niceTicks(max, n = 5) {
  if (!(max > 0)) return [0, 1];
  const raw = max / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  if (ticks[ticks.length - 1] < max) ticks.push(+(ticks[ticks.length - 1] + step).toPrecision(12));
  return ticks;
}

function fmtNum(v) {
  if (Math.abs(v) >= 1e6) return (v / 1e6).toPrecision(3) + "M";
  if (Math.abs(v) >= 1e4) return (v / 1e3).toPrecision(3) + "k";
  return String(+v.toPrecision(4));
}

function fmtTime(ms, span) {
  const s = showTime(ms); // "YYYY-MM-DD HH:MM:SS[.mmm]" in the console's zone
  if (span > 2 * 86400e3) return s.slice(5, 16);
  if (span > 120e3) return s.slice(11, 16);
  return s.slice(11, 19);
}

// zoomable lets the user drag across the plot to pick a time interval;
// root then receives a "zoom" event with {from, to} in ms.
function zoomable(root, svg, m, W, H, x0, x1) {
  const inv = (px) => x0 + ((px - m.l) / (W - m.l - m.r)) * (x1 - x0);
  const toSvg = (e) => {
    const r = svg.getBoundingClientRect();
    return ((e.clientX - r.left) / r.width) * W;
  };
  let start = null;
  const sel = el("rect", { class: "zoom", y: m.t, height: H - m.t - m.b, width: 0, visibility: "hidden" }, svg);
  svg.addEventListener("mousedown", (e) => {
    start = Math.min(Math.max(toSvg(e), m.l), W - m.r);
    sel.setAttribute("x", start);
    sel.setAttribute("width", 0);
    sel.setAttribute("visibility", "visible");
    e.preventDefault();
  });
  svg.addEventListener("mousemove", (e) => {
    if (start === null) return;
    const x = Math.min(Math.max(toSvg(e), m.l), W - m.r);
    sel.setAttribute("x", Math.min(start, x));
    sel.setAttribute("width", Math.abs(x - start));
  });
  const end = (e) => {
    if (start === null) return;
    const x = Math.min(Math.max(toSvg(e), m.l), W - m.r);
    sel.setAttribute("visibility", "hidden");
    const a = Math.min(start, x), b = Math.max(start, x);
    start = null;
    if (b - a >= 4) root.dispatchEvent(new CustomEvent("zoom", { detail: { from: inv(a), to: inv(b) } }));
  };
  svg.addEventListener("mouseup", end);
  svg.addEventListener("mouseleave", (e) => { if (start !== null) end(e); });
  svg.dataset.x0 = x0;
  svg.dataset.x1 = x1;
}

// Aggregations whose value for a bin with no events is 0: their series
// drop to 0 there instead of drawing a line across the gap.
const ZERO_WHEN_EMPTY = new Set(["count", "countif", "sum", "sumif", "distinct", "distinctif"]);
const MAX_POINTS = 2000;

function aggName(f) {
  return f.agg ? String(f.agg.name).toLowerCase() : "";
}

// fillEmptyBins adds the missing bins of every series as zeros, over the
// span all series cover, unless that would draw too many points.
function fillEmptyBins(list, step) {
  const xs = list.flatMap((s) => s.pts.map((p) => p[0]));
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  if (!(step > 0) || (x1 - x0) / step > MAX_POINTS) return;
  for (const s of list) {
    const have = new Map(s.pts.map((p) => [p[0], p[1]]));
    s.pts = [];
    for (let x = x0; x <= x1; x += step) s.pts.push([x, have.get(x) ?? 0]);
  }
}

// timeSeries splits a time-binned table into named series of [ms, value].
export function timeSeries(t) {
  const time = t.fields.findIndex((f) => f.name === "_time");
  const keys = keyColumns(t);
  const series = new Map();
  for (const vi of valueColumns(t)) {
    const vals = t.columns[vi];
    for (let r = 0; r < vals.length; r++) {
      if (typeof vals[r] !== "number") continue;
      const key = keys.map((k) => String(t.columns[k][r])).join(", ");
      const name = [key, valueColumns(t).length > 1 || !key ? t.fields[vi].name : ""].filter(Boolean).join(" · ");
      if (!series.has(name)) series.set(name, []);
      series.get(name).push([Date.parse(t.columns[time][r]), vals[r]]);
    }
  }
  const list = [...series.entries()].map(([name, pts]) => ({ name, pts: pts.sort((a, b) => a[0] - b[0]) }));
  if (t.buckets && t.buckets.size && valueColumns(t).every((i) => ZERO_WHEN_EMPTY.has(aggName(t.fields[i])))) {
    fillEmptyBins(list, t.buckets.size / 1e6);
  }
  const total = (s) => s.pts.reduce((a, p) => a + Math.abs(p[1]), 0);
  const shown = list.sort((a, b) => total(b) - total(a)).slice(0, MAX_SERIES);
  shown.more = list.length - shown.length; // the legend says how many are not drawn
  return shown;
}

function drawTime(root, t) {
  const series = timeSeries(t);
  const W = Math.max(root.clientWidth || 800, 320);
  const named = series.length > 1 || !!series[0].name;
  const perRow = Math.max(1, Math.floor((W - 48) / 180));
  const entries = series.length + (series.more ? 1 : 0);
  const legendH = named ? Math.ceil(entries / perRow) * 16 + 4 : 0;
  const H = 220 + legendH;
  const m = { l: 48, r: 12, t: 12, b: 24 + legendH };
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, height: H, "data-kind": "time", role: "img", "aria-label": "Time chart" });
  const all = series.flatMap((s) => s.pts);
  let x0 = Math.min(...all.map((p) => p[0]));
  let x1 = Math.max(...all.map((p) => p[0]));
  const size = t.buckets && t.buckets.size ? t.buckets.size / 1e6 : 0; // ns → ms
  x1 += size;
  if (x1 === x0) x1 = x0 + 1000;
  const lo = Math.min(0, ...all.map((p) => p[1]));
  const ticks = niceTicks(Math.max(...all.map((p) => p[1])) - lo);
  const y1 = lo + ticks[ticks.length - 1];
  const X = (v) => m.l + ((v - x0) / (x1 - x0)) * (W - m.l - m.r);
  const Y = (v) => H - m.b - ((v - lo) / (y1 - lo || 1)) * (H - m.t - m.b);
  for (const v of ticks) {
    el("line", { x1: m.l, x2: W - m.r, y1: Y(lo + v), y2: Y(lo + v), class: "grid" }, svg);
    text(svg, m.l - 6, Y(lo + v) + 4, fmtNum(lo + v), { "text-anchor": "end" });
  }
  el("line", { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: "axis" }, svg);
  const n = Math.max(2, Math.floor((W - m.l - m.r) / 110));
  for (let i = 0; i <= n; i++) {
    const v = x0 + ((x1 - x0) * i) / n;
    text(svg, X(v), H - m.b + 16, fmtTime(v, x1 - x0), { "text-anchor": i === 0 ? "start" : i === n ? "end" : "middle" });
  }
  series.forEach((s, i) => {
    const half = size / 2; // a point sits in the middle of its bin
    const d = s.pts.map((p, j) => `${j ? "L" : "M"}${X(p[0] + half).toFixed(1)},${Y(p[1]).toFixed(1)}`).join("");
    const path = el("path", { d, class: "series", stroke: COLORS[i % COLORS.length], "data-series": s.name }, svg);
    el("title", {}, path).textContent = s.name;
    if (s.pts.length === 1) el("circle", { cx: X(s.pts[0][0] + half), cy: Y(s.pts[0][1]), r: 3, fill: COLORS[i % COLORS.length] }, svg);
  });
  if (named) {
    const legend = el("g", { class: "legend" }, svg);
    series.forEach((s, i) => {
      const x = m.l + (i % perRow) * 180;
      const y = H - legendH + 8 + Math.floor(i / perRow) * 16;
      el("rect", { x, y: y - 4, width: 12, height: 3, fill: COLORS[i % COLORS.length] }, legend);
      text(legend, x + 16, y, s.name.length > 24 ? s.name.slice(0, 23) + "…" : s.name);
    });
    if (series.more) {
      const i = series.length;
      text(legend, m.l + (i % perRow) * 180, H - legendH + 8 + Math.floor(i / perRow) * 16, `+${series.more} more`, { class: "more" });
    }
  }
  zoomable(root, svg, m, W, H, x0, x1);
  root.appendChild(svg);
}

// bars returns the top groups by the first value column: [{label, value}].
export function bars(t) {
  const vi = valueColumns(t)[0];
  const keys = keyColumns(t);
  const out = [];
  for (let r = 0; r < t.columns[vi].length; r++) {
    const v = t.columns[vi][r];
    if (typeof v !== "number") continue;
    out.push({ label: keys.map((k) => String(t.columns[k][r])).join(", ") || "(all)", value: v });
  }
  return out.sort((a, b) => b.value - a.value).slice(0, MAX_BARS);
}

function drawBars(root, t) {
  const list = bars(t);
  const vi = valueColumns(t)[0];
  const W = Math.max(root.clientWidth || 800, 320), row = 18;
  const m = { l: 160, r: 60, t: 8, b: 8 };
  const H = m.t + m.b + list.length * row;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, height: H, "data-kind": "bar", role: "img", "aria-label": `Bar chart of ${t.fields[vi].name}` });
  const max = Math.max(...list.map((b) => b.value), 0) || 1;
  list.forEach((b, i) => {
    const y = m.t + i * row;
    const w = (Math.max(b.value, 0) / max) * (W - m.l - m.r);
    text(svg, m.l - 6, y + 13, b.label.length > 24 ? b.label.slice(0, 23) + "…" : b.label, { "text-anchor": "end" });
    const r = el("rect", { x: m.l, y: y + 3, width: Math.max(w, 1).toFixed(1), height: row - 6, class: "bar", "data-label": b.label, "data-value": b.value }, svg);
    el("title", {}, r).textContent = `${b.label}: ${b.value}`;
    text(svg, m.l + w + 4, y + 13, fmtNum(b.value));
  });
  root.appendChild(svg);
}

// drawChart replaces root's content with the chart for t, if any.
export function drawChart(root, t) {
  root.innerHTML = "";
  const kind = chartKind(t);
  if (kind === "time") drawTime(root, t);
  else if (kind === "bar") drawBars(root, t);
  return kind;
}
