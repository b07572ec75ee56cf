// The helper engines of the offline worker (helper.js): one per spare
// core, each with its own copy of the WASM engine, to which the worker's
// engine hands byte ranges of the files queried in place. A cancelled
// query cancels their fragments; a helper whose engine died is ended,
// and the next query starts new ones, which open the files again.

export class HelperPool {
  // size is how many helpers to run; onRead(bytes, helper, rows) hears
  // of every read, with the rows that helper has decoded so far.
  constructor(size, onRead) {
    this.size = size;
    this.onRead = onRead;
    this.helpers = null;
    this.next = 0;
    this.calls = new Map();
    this.ready = Promise.resolve();
  }

  // start runs the helpers with module (compiled once by the worker) and
  // opens files (a Map of dataset to File) in each. It returns (and keeps
  // as ready) a promise that settles once every helper has started, or
  // failed to.
  start(module, files) {
    if (this.helpers || this.size < 1) return this.ready;
    this.helpers = [];
    const started = [];
    for (let i = 0; i < this.size; i++) {
      const w = new Worker(new URL("./helper.js", import.meta.url), { type: "module" });
      w.onmessage = (e) => this.message(e.data);
      w.onerror = (e) => this.fail(w, new Error(`helper ${i + 1} failed: ${e.message || "error"}`));
      this.helpers.push(w);
      started.push(this.send(w, { op: "start", module, helper: i + 1 }));
      for (const file of files.values()) this.send(w, { op: "open", file }).catch(() => {});
    }
    this.ready = Promise.allSettled(started);
    return this.ready;
  }

  message(m) {
    if (m.exited) { // its engine died: fail its calls and start afresh next time
      const w = this.helpers && this.helpers[m.helper - 1];
      if (w) this.stop(new Error(m.exited));
      return;
    }
    if (m.read) {
      this.onRead(m.read, m.helper, m.rows);
      return;
    }
    const c = this.calls.get(m.cid);
    if (!c) return;
    this.calls.delete(m.cid);
    if (m.ok) c.resolve(m.result);
    else c.reject(new Error(m.error));
  }

  send(w, msg) {
    const cid = ++this.next;
    const done = new Promise((resolve, reject) => this.calls.set(cid, { resolve, reject, w, op: msg.op }));
    w.postMessage({ ...msg, cid });
    return done;
  }

  // fail rejects the calls waiting on w.
  fail(w, err) {
    for (const [cid, c] of this.calls) {
      if (c.w === w) {
        this.calls.delete(cid);
        c.reject(err);
      }
    }
  }

  // run sends a fragment to helper n (1-based), as the engine's
  // setHelpers run function: a promise of its answer's bytes.
  run(n, frag) {
    const w = this.helpers && this.helpers[n - 1];
    if (!w) return Promise.reject(new Error(`no helper ${n}`));
    return this.send(w, { op: "fragment", frag });
  }

  // pending lists the calls not answered yet, for diagnosis.
  pending() {
    return [...this.calls].map(([cid, c]) => ({ cid, op: c.op, helper: (this.helpers || []).indexOf(c.w) + 1 }));
  }

  // state asks every helper what it is doing, out of its queue; a helper
  // that does not answer within a second says so.
  state() {
    return Promise.all((this.helpers || []).map((w, i) => new Promise((resolve) => {
      const t = setTimeout(() => resolve({ helper: i + 1, silent: true }), 1000);
      const ch = new MessageChannel();
      ch.port1.onmessage = (e) => { clearTimeout(t); resolve(e.data); };
      w.postMessage({ op: "state" }, [ch.port2]);
    })));
  }

  // all sends msg to every helper and waits for their answers.
  all(msg) {
    return Promise.all((this.helpers || []).map((w) => this.send(w, msg)));
  }

  // cancel stops the fragments the helpers run, which then answer with
  // an error. Ending a helper's Web Worker in the middle of a read made
  // later reads of the same File hang in the other engines (the soak of
  // issue 26: after a Cancel, a query stopped reading and never ended).
  cancel() {
    for (const w of this.helpers || []) w.postMessage({ op: "cancel" });
  }

  // stop ends every helper, failing what they were doing with err.
  stop(err = new Error("the query was cancelled")) {
    for (const w of this.helpers || []) {
      w.terminate();
      this.fail(w, err);
    }
    this.helpers = null;
  }
}
