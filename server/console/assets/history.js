// Recent queries, kept in this browser (localStorage), and starred
// queries, kept on the server (/v2/apl-starred-queries) so the org's
// other users and the API see them.

import { escapeHTML } from "./highlight.js";

const KEY = "aplite.history";
const MAX = 50;

export function recent() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "[]");
  } catch {
    return [];
  }
}

// remember puts apl first in the history (once).
export function remember(apl) {
  const list = recent().filter((h) => h.apl !== apl);
  list.unshift({ apl, at: new Date().toISOString() });
  localStorage.setItem(KEY, JSON.stringify(list.slice(0, MAX)));
}

// renderHistory fills root with the recent and starred queries; pick(apl)
// loads one into the editor, unstar(id) removes a starred one.
export function renderHistory(root, starred, { pick, unstar }) {
  const oneLine = (s) => s.replace(/\s+/g, " ").trim();
  let html = "<h3>Starred</h3>";
  if (starred === null) html += '<p class="note">Sign in to share starred queries with your org.</p>';
  else if (!starred.length) html += '<p class="note">No starred queries yet: ☆ stars the query in the editor.</p>';
  html += '<ul class="starred">' + (starred || []).map((s) =>
    `<li data-id="${escapeHTML(s.id)}"><button type="button" class="pick" title="${escapeHTML(s.query && s.query.apl || "")}">${escapeHTML(s.name || oneLine(s.query && s.query.apl || ""))}</button>` +
    `<button type="button" class="unstar" title="Remove the star">✕</button></li>`).join("") + "</ul>";
  html += "<h3>Recent</h3>";
  const rec = recent();
  if (!rec.length) html += '<p class="note">Queries you run show up here.</p>';
  html += '<ul class="recent">' + rec.map((h, i) =>
    `<li data-i="${i}"><button type="button" class="pick" title="${escapeHTML(h.apl)}">${escapeHTML(oneLine(h.apl))}</button></li>`).join("") + "</ul>";
  root.innerHTML = html;
  root.querySelectorAll(".starred li").forEach((li, i) => {
    li.querySelector(".pick").addEventListener("click", () => pick(starred[i].query.apl));
    li.querySelector(".unstar").addEventListener("click", () => unstar(starred[i].id));
  });
  root.querySelectorAll(".recent li").forEach((li) =>
    li.querySelector(".pick").addEventListener("click", () => pick(rec[+li.dataset.i].apl)));
}
