import { QueryFailure } from "./backends.js";

// engineStats records the engine's start-up time in its worker (shown to
// tests and devtools through window.apliteConsole).
export const engineStats = { startMs: null, phases: null, helpersMs: null, helpers: 0, restarts: 0 };

// CANCEL_GRACE is how long a cancelled call may take to end before the
// worker is replaced: Cancel must give the page back even when the engine
// is stuck (a read or a helper that never answers, an engine that died).
const CANCEL_GRACE = 2000;

// OfflineBackend runs the WASM engine in a Web Worker (worker.js), so the
// page stays responsive while a large file loads or a query runs. It
// keeps the files it opened, so that a worker it has to replace (a
// Cancel the worker did not answer, an engine that stopped) opens them
// again and the page stays usable.
export class OfflineBackend {
  constructor() {
    this.kind = "offline";
    this.cache = [];
    this.worker = null;
    this.next = 0;
    this.pending = new Map();
    this.files = new Map(); // dataset -> File, to open again in a new worker
    this.reopening = null; // a promise while a new worker opens the files
  }

  call(op, args = {}, onProgress) {
    if (!this.worker) {
      this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
      const w = this.worker;
      this.worker.onmessage = (e) => {
        if (w !== this.worker) return; // a replaced worker's last words
        if (e.data.fatal) {
          this.restart(e.data.fatal);
          return;
        }
        const p = this.pending.get(e.data.id);
        if (!p) return;
        if (e.data.progress || e.data.partial) {
          if (e.data.partial && p.onProgress) p.onProgress({ partial: e.data.partial });
          else if (p.onProgress) p.onProgress(e.data.progress);
          return;
        }
        this.pending.delete(e.data.id);
        if (e.data.ok) p.resolve(e.data.result);
        else p.reject(e.data.error.pos ? new QueryFailure(e.data.error.message, e.data.error.pos) : new Error(e.data.error.message));
      };
    }
    const id = ++this.next;
    const done = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress }));
    this.worker.postMessage({ id, op, ...args });
    return { id, done };
  }

  // after runs call(op, ...) once a new worker has opened the files again.
  after(op, args, onProgress) {
    if (!this.reopening) return this.call(op, args, onProgress);
    let id = 0;
    const done = this.reopening.then(() => {
      const c = this.call(op, args, onProgress);
      id = c.id;
      return c.done;
    });
    return { get id() { return id; }, done };
  }

  // cancel asks the worker to stop call id and replaces the worker when
  // it has not answered within CANCEL_GRACE.
  cancel(id) {
    if (!id || !this.pending.has(id)) return;
    this.worker.postMessage({ op: "cancel", target: id });
    const w = this.worker;
    setTimeout(() => {
      if (this.worker === w && this.pending.has(id)) this.restart("the engine did not stop in time, so it was restarted");
    }, CANCEL_GRACE);
  }

  // restart ends the worker, fails what it was doing with reason, and
  // opens the files it held in a new one.
  restart(reason) {
    engineStats.restarts++;
    if (this.worker) this.worker.terminate();
    this.worker = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new Error(reason));
    const files = [...this.files.values()];
    this.reopening = Promise.all(files.map((f) => this.call("load", { file: f }).done.catch(() => this.forget(f))))
      .finally(() => { this.reopening = null; });
  }

  forget(file) {
    for (const [name, f] of this.files) if (f === file) this.files.delete(name);
  }

  async start() {
    const r = await this.after("start").done;
    engineStats.startMs = r.startMs;
    engineStats.phases = r.phases;
    return r;
  }

  // warm starts the engine and its helper engines before a file comes
  // (the user chose Offline, opened the file picker or drags a file over
  // the page), so that the drop finds them ready. Without a file the
  // page starts the engine alone: helpers cost memory.
  async warm() {
    const r = await this.after("warm").done;
    Object.assign(engineStats, { startMs: r.startMs, phases: r.phases, helpersMs: r.helpersMs, helpers: r.helpers });
    return r;
  }

  // loadFile streams a File (or Blob with a name) into a dataset named
  // after it, replacing one of the same name. onProgress receives
  // {bytes, total, rows, ms}; the returned cancel stops the load.
  loadFile(file, onProgress) {
    const c = this.after("load", { file }, onProgress);
    const done = c.done.then((r) => {
      this.files.set(r.dataset, file);
      return r;
    });
    return { done, cancel: () => this.cancel(c.id) };
  }

  async datasets() {
    if (!this.worker) return [];
    this.cache = await this.after("datasets").done;
    return this.cache.map((d) => ({ name: d.name, numEvents: d.numEvents, inPlace: d.inPlace, bytes: d.bytes }));
  }

  async fields(name) {
    const d = this.cache.find((x) => x.name === name);
    return d ? d.fields : [];
  }

  async functions() {
    return this.after("functions").done;
  }

  // syntax lists apl's syntax errors [{message, line, col}], from the
  // engine's parser (no dataset needed: server mode uses it too).
  async syntax(apl) {
    return this.after("syntax", { apl }).done;
  }

  // filterAt is the offset in apl where a filter on the source goes.
  async filterAt(apl) {
    return (await this.after("filterAt", { apl }).done).at;
  }

  // memory reports the worker's WebAssembly memory (which holds the
  // loaded datasets and never shrinks, so it is the load's peak) and its
  // JavaScript heap where the browser tells it; null before the engine
  // has started.
  async memory() {
    if (!this.worker) return null;
    return this.after("memory").done;
  }

  // query runs apl; onProgress receives {bytes, total, rows, ms} while a
  // Parquet file's columns or row groups the query needs are read, or a
  // file read in place is, and {partial: {result, bytes, total, ms}}
  // when the worker answers from the start of a large file read in place
  // before it has read the whole.
  async query(apl, range, onProgress) {
    return this.begin(apl, range, onProgress).done;
  }

  // begin runs apl as query does and returns {done, cancel}: cancel stops
  // it (a query over a large file read in place takes seconds), and gives
  // the page back within CANCEL_GRACE whatever the engine does.
  begin(apl, range, onProgress) {
    const c = this.after("query", { apl, range: { start: range.start || "", end: range.end || "" } }, onProgress);
    return { done: c.done, cancel: () => this.cancel(c.id) };
  }
}
