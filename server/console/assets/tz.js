// Time zone of the console: local by default, UTC at the user's choice
// (kept in localStorage). Results keep RFC 3339 UTC strings; only the way
// they are shown changes.

const KEY = "aplite.tz";

export const tz = {
  utc: localStorage.getItem(KEY) === "utc",
  set(utc) {
    this.utc = utc;
    localStorage.setItem(KEY, utc ? "utc" : "local");
  },
  label() {
    return this.utc ? "UTC" : Intl.DateTimeFormat().resolvedOptions().timeZone || "local";
  },
};

const pad = (n, w = 2) => String(n).padStart(w, "0");

// showTime renders an RFC 3339 string (or ms) in the chosen zone, with
// milliseconds when it has them.
export function showTime(v) {
  const d = typeof v === "number" ? new Date(v) : new Date(v);
  if (isNaN(d)) return String(v);
  const g = tz.utc
    ? [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]
    : [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()];
  const base = `${g[0]}-${pad(g[1])}-${pad(g[2])} ${pad(g[3])}:${pad(g[4])}:${pad(g[5])}`;
  return g[6] ? `${base}.${pad(g[6], 3)}` : base;
}

// toInput renders ms for a datetime-local input in the chosen zone;
// fromInput reads one back as an instant.
export function toInput(ms) {
  const d = new Date(ms);
  if (tz.utc) return d.toISOString().slice(0, 19);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function fromInput(v) {
  if (!v) return "";
  const s = v.length === 16 ? v + ":00" : v;
  return (tz.utc ? new Date(s + "Z") : new Date(s)).toISOString();
}
