// The offline engine in a Web Worker: the WASM build of aplite runs off
// the page's thread, so loading a large file or running a long query
// never freezes the page. A dropped NDJSON or CSV file is read a slice at
// a time (File.slice), cut at line ends and streamed into the engine,
// which seals rows into compressed blocks: the file is never held whole.
// Messages: {id, op, ...} in; {id, ok, result | error} or {id, progress}
// out.

const SLICE = 4 << 20;
let engine = null;
const cancelled = new Set();

function start() {
  engine ??= (async () => {
    const began = performance.now();
    await import("./wasm_exec.js");
    const go = new Go();
    const url = new URL("./aplite.wasm", import.meta.url);
    let instance;
    try {
      ({ instance } = await WebAssembly.instantiateStreaming(fetch(url), go.importObject));
    } catch {
      const bytes = await (await fetch(url)).arrayBuffer();
      ({ instance } = await WebAssembly.instantiate(bytes, go.importObject));
    }
    go.run(instance);
    if (!globalThis.aplite) throw new Error("the WASM engine did not start");
    return { api: globalThis.aplite, startMs: performance.now() - began };
  })();
  engine.catch(() => { engine = null; });
  return engine;
}

// answer parses the engine's JSON reply, throwing its error.
function answer(json) {
  const v = JSON.parse(json);
  if (v && v.error) {
    const e = new Error(v.error.message);
    if (v.error.line) e.pos = { line: v.error.line, col: v.error.col || 1 };
    throw e;
  }
  return v;
}

function concat(a, b) {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function load(id, file) {
  const { api } = await start();
  if (!/\.(ndjson|jsonl|csv)$/i.test(file.name)) { // one document: read whole
    const bytes = new Uint8Array(await file.arrayBuffer());
    return answer(api.loadFile(file.name, bytes));
  }
  const began = performance.now();
  const begin = answer(api.beginLoad(file.name));
  let off = 0;
  let carry = new Uint8Array(0);
  let totals = { ingested: 0 };
  while (off < file.size) {
    if (cancelled.has(id)) {
      cancelled.delete(id);
      api.endLoad(begin.id);
      api.drop(begin.dataset);
      throw new Error(`loading ${file.name} was cancelled`);
    }
    const slice = new Uint8Array(await file.slice(off, off + SLICE).arrayBuffer());
    off += slice.length;
    const data = concat(carry, slice);
    const cut = off >= file.size ? data.length : data.lastIndexOf(10) + 1;
    if (cut === 0) { // one line longer than a slice: read on
      carry = data;
      continue;
    }
    carry = data.slice(cut);
    totals = answer(api.loadChunk(begin.id, data.subarray(0, cut)));
    postMessage({ id, progress: { bytes: off, total: file.size, rows: totals.ingested, ms: performance.now() - began } });
  }
  if (carry.length) totals = answer(api.loadChunk(begin.id, carry));
  return answer(api.endLoad(begin.id));
}

self.onmessage = async (e) => {
  const { id, op } = e.data;
  if (op === "cancel") {
    cancelled.add(e.data.target);
    return;
  }
  try {
    let result;
    switch (op) {
      case "start":
        result = { startMs: (await start()).startMs };
        break;
      case "load":
        result = await load(id, e.data.file);
        break;
      case "query": {
        const { api } = await start();
        result = answer(api.query(e.data.apl, e.data.range));
        break;
      }
      case "datasets":
        result = engine ? answer((await start()).api.datasets()) : [];
        break;
      case "functions":
        result = answer((await start()).api.functions());
        break;
      default:
        throw new Error(`unknown operation ${op}`);
    }
    postMessage({ id, ok: true, result });
  } catch (err) {
    postMessage({ id, ok: false, error: { message: err.message, pos: err.pos || null } });
  }
};
