// Live tail: follows the newest events of a query. Every interval it runs
// the query over (newest _time seen, now], and puts new rows on top of
// those kept, at most max of them. Pausing keeps what is shown.

// norm pads an RFC 3339 UTC time's fraction to 9 digits, so times
// compare as strings to the nanosecond ("29Z" sorts after "29.5Z").
export function norm(s) {
  const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?Z$/.exec(s || "");
  return m ? `${m[1]}.${((m[2] || ".").slice(1) + "000000000").slice(0, 9)}Z` : s;
}

export class LiveTail {
  constructor({ backend, onRows, onError, interval = 2000, max = 1000 }) {
    this.backend = backend;
    this.onRows = onRows;
    this.onError = onError;
    this.interval = interval;
    this.max = max;
    this.timer = null;
    this.rows = [];
    this.fields = null;
    this.since = null; // RFC 3339 of the newest event shown
    this.seen = new Set(); // events at exactly `since`, so none shows twice
  }

  get running() {
    return this.timer !== null;
  }

  start(apl, lookbackMs = 5 * 60e3) {
    this.stop();
    this.apl = apl;
    this.rows = [];
    this.fields = null;
    this.since = new Date(Date.now() - lookbackMs).toISOString();
    this.seen = new Set();
    const tick = async () => {
      await this.poll();
      if (this.timer !== null) this.timer = setTimeout(tick, this.interval);
    };
    this.timer = setTimeout(tick, 0);
  }

  pause() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  resume() {
    if (this.timer !== null || !this.apl) return;
    const tick = async () => {
      await this.poll();
      if (this.timer !== null) this.timer = setTimeout(tick, this.interval);
    };
    this.timer = setTimeout(tick, 0);
  }

  stop() {
    this.pause();
    this.apl = null;
  }

  async poll() {
    const end = new Date(Date.now() + 1000).toISOString();
    let res;
    try {
      res = await this.backend.query(this.apl, { start: this.since, end });
    } catch (e) {
      this.pause();
      this.onError(e);
      return;
    }
    const t = (res.tables || [])[0];
    if (!t) return;
    const ti = t.fields.findIndex((f) => f.name === "_time");
    if (ti < 0) {
      this.pause();
      this.onError(new Error("live tail needs events with _time: use a query without summarize"));
      return;
    }
    this.fields = t.fields;
    const fresh = [];
    const n = t.columns.length ? t.columns[0].length : 0;
    for (let r = 0; r < n; r++) {
      const row = t.columns.map((c) => c[r]);
      const key = JSON.stringify(row);
      const at = norm(row[ti]);
      if (at < norm(this.since) || (at === norm(this.since) && this.seen.has(key))) continue;
      fresh.push(row);
    }
    fresh.sort((a, b) => (norm(a[ti]) < norm(b[ti]) ? 1 : norm(a[ti]) > norm(b[ti]) ? -1 : 0));
    if (fresh.length) {
      const newest = fresh[0][ti];
      if (norm(newest) !== norm(this.since)) this.seen = new Set();
      this.since = newest;
      for (const row of fresh) if (norm(row[ti]) === norm(newest)) this.seen.add(JSON.stringify(row));
    }
    this.rows = fresh.concat(this.rows).slice(0, this.max);
    this.onRows(this.asResult(), fresh.length);
  }

  // asResult is the kept rows in the API's tabular shape.
  asResult() {
    const fields = this.fields || [];
    const columns = fields.map((_, j) => this.rows.map((row) => row[j]));
    return { format: "tabular", tables: [{ name: "0", fields, columns }] };
  }
}
