// The time-range picker: quick ranges relative to now, all time, or a
// custom [from, to) in the console's time zone (tz.js). Ranges become
// absolute RFC 3339 times when a query runs, so the server and the WASM
// engine get the same bounds.

import { toInput, fromInput } from "./tz.js";

const UNITS = { m: 60e3, h: 3600e3, d: 86400e3 };

export class TimeRange {
  constructor({ select, custom, from, to }) {
    this.select = select;
    this.custom = custom;
    this.from = from;
    this.to = to;
    select.addEventListener("change", () => {
      const isCustom = select.value === "custom";
      custom.hidden = !isCustom;
      if (isCustom && !from.value) {
        // Start from the quick range shown before, in UTC.
        const now = Date.now();
        to.value = toInput(now);
        from.value = toInput(now - UNITS.h);
      }
    });
  }

  set(value) {
    this.select.value = value;
    this.select.dispatchEvent(new Event("change"));
  }

  // bounds returns {start, end} as RFC 3339 strings ("" for open ends).
  bounds(now = Date.now()) {
    const v = this.select.value;
    if (v === "all") return { start: "", end: "" };
    if (v === "custom") {
      return { start: fromInput(this.from.value), end: fromInput(this.to.value) };
    }
    const m = /^(\d+)([mhd])$/.exec(v);
    if (!m) return { start: "", end: "" };
    return { start: new Date(now - m[1] * UNITS[m[2]]).toISOString(), end: new Date(now).toISOString() };
  }

  label() {
    return this.select.options[this.select.selectedIndex].text;
  }

  // zoom sets a custom range [fromMs, toMs) (a selection on the chart).
  zoom(fromMs, toMs) {
    this.from.value = toInput(fromMs);
    this.to.value = toInput(Math.max(toMs, fromMs + 1000));
    this.select.value = "custom";
    this.custom.hidden = false;
  }
}

