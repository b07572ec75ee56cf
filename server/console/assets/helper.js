// A helper engine: a Web Worker the offline engine's worker (worker.js)
// starts, one per spare core, to read its share of a file queried in
// place. It runs its own copy of the WASM engine, compiled once by the
// worker and sent here, opens the same Files, and answers a fragment (a
// byte range of a file and the query's first stages, planned by the
// worker's engine) with its partial result. Go runs on one thread per
// engine, so helpers are how a query over a dropped file uses more than
// one core. Messages run one at a time, in order.
// In: {op: "start", module} | {op: "open", file} | {op: "drop", name} |
// {op: "fragment", frag} | {op: "fill", name, piece, nodes} (decode every
// field of its piece of a file, kept for later queries) | {op: "memory"},
// each with a cid.
// Out: {cid, ok, result | error}, and {read: bytes, helper, rows} after
// every read (rows: what the running fragment has decoded); {exited,
// helper} when its engine has stopped. {op: "state"}, with a port, is
// answered at once on that port, outside the queue (for diagnosis).
// {op: "cancel"}, also outside the queue, stops the running fragment or
// fill, which then answers with its error.

import { fileReader, readStats } from "./read.js";
import { warmUp } from "./warm.js";

let api = null;
let mem = null;
let helperNo = 0; // this helper's number, in its reads' progress

// engineLog keeps the engine's last lines of output (a fatal error's
// too), and exited whether it has ended, for op "state".
const engineLog = [];
const log = console.log.bind(console);
console.log = (...a) => {
  engineLog.push(a.join(" "));
  if (engineLog.length > 30) engineLog.shift();
  log(...a);
};
let exited = false;

async function start(module, helper) {
  helperNo = helper;
  await import("./wasm_exec.js");
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  // An end is a fatal error, after which the fragment running here never
  // answers: the pool fails it, so the worker's engine scans it itself.
  go.run(instance).then(() => {
    exited = true;
    postMessage({ exited: `helper ${helperNo} stopped (${engineLog.slice(-3).join(" ") || "no message"})`, helper: helperNo });
  });
  api = globalThis.aplite;
  mem = instance.exports.mem;
  await warmUp(api); // its first fragment then finds the decoder compiled
  return {};
}

// reader reads a File's byte ranges, telling the worker how much it read,
// through a fileReader made afresh for each fragment (worker.js says why).
const readers = new Map(); // File -> its current fileReader
function reader(file) {
  readers.set(file, fileReader(file, onRead));
  return (from, to) => readers.get(file)(from, to);
}

function onRead(n) {
  postMessage({ read: n, helper: helperNo, rows: Number(api.rowsRead()) });
}

function answer(json) {
  const v = JSON.parse(json);
  if (v && v.error) throw new Error(v.error.message);
  return v;
}

async function handle(m) {
  switch (m.op) {
    case "start":
      return start(m.module, m.helper);
    case "open":
      return answer(await api.openFile(m.file.name, m.file.size, reader(m.file), { helper: true }));
    case "drop":
      return answer(api.drop(m.name));
    case "fill": { // decodes every field of its piece while the page is idle (worker.js)
      if (m.cid <= cancelUpTo) throw new Error("the fill was stopped");
      for (const f of readers.keys()) readers.set(f, fileReader(f, () => {}));
      return answer(await api.fill(m.name, m.piece, m.nodes, String(m.cid)));
    }
    case "fragment": {
      if (m.cid <= cancelUpTo) throw new Error("the query was cancelled");
      for (const f of readers.keys()) readers.set(f, fileReader(f, onRead));
      const out = await api.runFragment(m.frag, String(m.cid));
      if (typeof out === "string") answer(out); // an error answer throws
      return out;
    }
    case "memory":
      return { wasmBytes: mem ? mem.buffer.byteLength : 0 };
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

let queue = Promise.resolve();
let busy = null; // the message being handled
// A cancel stops every fragment received before it (cid up to
// cancelUpTo): they belong to the cancelled query.
let lastCid = 0;
let cancelUpTo = 0;
self.onmessage = (e) => {
  const m = e.data;
  if (m.op === "cancel") { // out of the queue: stops the fragment running now and those queued
    cancelUpTo = lastCid;
    if (busy && (busy.op === "fragment" || busy.op === "fill") && api && !exited) api.cancel(String(busy.cid));
    return;
  }
  if (m.op === "state") {
    e.ports[0].postMessage({ helper: helperNo, busy, exited, log: engineLog, stalls: readStats.stalls, late: readStats.late, lateMaxMs: readStats.lateMaxMs, rows: api && !exited ? Number(api.rowsRead()) : 0 });
    return;
  }
  lastCid = Math.max(lastCid, m.cid);
  queue = queue.then(async () => {
    busy = { op: m.op, cid: m.cid };
    try {
      const result = await handle(m);
      postMessage({ cid: m.cid, ok: true, result }, result instanceof Uint8Array ? [result.buffer] : []);
    } catch (err) {
      postMessage({ cid: m.cid, ok: false, error: err.message });
    } finally {
      busy = null;
    }
  });
};
