// A helper engine: a Web Worker the offline engine's worker (worker.js)
// starts, one per spare core, to read its share of a file queried in
// place. It runs its own copy of the WASM engine, compiled once by the
// worker and sent here, opens the same Files, and answers a fragment (a
// byte range of a file and the query's first stages, planned by the
// worker's engine) with its partial result. Go runs on one thread per
// engine, so helpers are how a query over a dropped file uses more than
// one core. Messages run one at a time, in order.
// In: {op: "start", module} | {op: "open", file} | {op: "drop", name} |
// {op: "fragment", frag} | {op: "memory"}, each with a cid.
// Out: {cid, ok, result | error}, and {read: bytes, helper, rows} after
// every read (rows: what the running fragment has decoded).

import { fileReader } from "./read.js";

let api = null;
let mem = null;
let helperNo = 0; // this helper's number, in its reads' progress

async function start(module, helper) {
  helperNo = helper;
  await import("./wasm_exec.js");
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  go.run(instance);
  api = globalThis.aplite;
  mem = instance.exports.mem;
  return {};
}

// reader reads a File's byte ranges, telling the worker how much it read.
function reader(file) {
  return fileReader(file, (n) => postMessage({ read: n, helper: helperNo, rows: Number(api.rowsRead()) }));
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
    case "fragment": {
      const out = await api.runFragment(m.frag);
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
self.onmessage = (e) => {
  const m = e.data;
  queue = queue.then(async () => {
    try {
      const result = await handle(m);
      postMessage({ cid: m.cid, ok: true, result }, result instanceof Uint8Array ? [result.buffer] : []);
    } catch (err) {
      postMessage({ cid: m.cid, ok: false, error: err.message });
    }
  });
};
