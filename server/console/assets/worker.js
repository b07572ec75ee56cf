import { HelperPool } from "./pool.js";
import { fileReader, readSlice, readStats } from "./read.js";
import { warmUp } from "./warm.js";

// The offline engine in a Web Worker: the WASM build of aplite runs off
// the page's thread, so loading a large file or running a long query
// never freezes the page. A dropped NDJSON file is not loaded: a query
// reads it in place, a slice at a time (File.slice), decoding only
// the fields the query reads, with one helper engine per spare core
// (pool.js, helper.js) reading its own byte range of the file. Each
// engine keeps the columns it decoded (session/place_cache.go), so a
// later query over fields already read reads nothing. A CSV
// file is read a slice at a time, cut at line ends and streamed into the
// engine, which seals rows into compressed blocks: the file is never
// held whole.
// A Parquet file is read the same way in the order Parquet needs: its
// footer from the end, then one row group's column chunks at a time; and
// only the columns asked for: _time when the file is dropped, then before
// each query the columns it uses that are not loaded yet.
// Messages: {id, op, ...} in; {id, ok, result | error} or {id, progress}
// out.

const SLICE = 4 << 20;
let engine = null;
const cancelled = new Set();
// parquetFiles keeps each Parquet dataset's File, to read more of its
// columns when a query needs them.
const parquetFiles = new Map();
// placeFiles are the NDJSON files queried in place, by dataset: every
// query reads them again, so a helper started later opens them too.
const placeFiles = new Map();
// reading counts the bytes the engines have read for the running query
// (id), which hears of each read as progress.
// The rows come from each engine (rowsRead), the helpers' with their reads.
const reading = { id: 0, bytes: 0, began: 0, rows: 0, helperRows: new Map() };
function onRead(n, helper, rows) {
  reading.bytes += n;
  if (helper) reading.helperRows.set(helper, rows);
  else if (engineAPI) reading.rows = Number(engineAPI.rowsRead());
  if (!reading.id) return;
  let all = reading.rows;
  for (const r of reading.helperRows.values()) all += r;
  postMessage({ id: reading.id, progress: { bytes: reading.bytes, total: totalBytes(), rows: all, ms: performance.now() - reading.began } });
}
// engineAPI is this worker's engine once started, for rowsRead.
let engineAPI = null;
// pool holds the helper engines, one per core beyond this worker's.
const pool = new HelperPool(Math.min(navigator.hardwareConcurrency || 1, 8) - 1, onRead);
// queries are the running queries' ids, which cancel may stop.
const queries = new Set();

// engineLog keeps the engine's last lines of output (Go writes its
// stdout and stderr, a fatal error's too, through console.log), and
// exited whether its Go program has ended: a test that finds the worker
// stuck reads both (op "state").
const engineLog = [];
const log = console.log.bind(console);
console.log = (...a) => {
  engineLog.push(a.join(" "));
  if (engineLog.length > 30) engineLog.shift();
  log(...a);
};
let exited = false;

// instantiate runs one engine from the compiled module.
async function instantiate(module) {
  await import("./wasm_exec.js");
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  // Go's main never returns: an end is a fatal error, after which no
  // promise of this engine settles. The page replaces the worker.
  go.run(instance).then(() => {
    exited = true;
    postMessage({ fatal: `the engine stopped (${engineLog.slice(-3).join(" ") || "no message"}), so it was restarted` });
  });
  if (!globalThis.aplite) throw new Error("the WASM engine did not start");
  return { api: globalThis.aplite, mem: instance.exports.mem };
}

function start() {
  engine ??= (async () => {
    const began = performance.now();
    const url = new URL("./aplite.wasm", import.meta.url);
    let module;
    try {
      module = await WebAssembly.compileStreaming(fetch(url));
    } catch {
      module = await WebAssembly.compile(await (await fetch(url)).arrayBuffer());
    }
    const compiled = performance.now();
    const e = await instantiate(module);
    engineAPI = e.api;
    const ran = performance.now();
    await warmUp(e.api);
    const now = performance.now();
    return { ...e, module, startMs: now - began, phases: { compileMs: compiled - began, runMs: ran - compiled, warmMs: now - ran } };
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

function read(file, from, to) {
  return readSlice(file, from, to);
}

// stopIfCancelled ends a streamed load the page cancelled, dropping
// what it had loaded.
function stopIfCancelled(id, api, begin, file) {
  if (!cancelled.has(id)) return;
  cancelled.delete(id);
  api.endLoad(begin.id);
  api.drop(begin.dataset);
  const err = new Error(`loading ${file.name} was cancelled`);
  err.cancelled = true;
  throw err;
}

// reader reads a File's byte ranges for the engine, counting the bytes,
// through the file's current fileReader. Each query gets fresh ones
// (freshReaders): a read a cancelled query left in flight, and its
// read-ahead, must never meet the next query's reads in the same two
// buffers (the soak of issue 26 saw a query after a Cancel stop reading).
const readers = new Map(); // File -> its current fileReader
function reader(file) {
  readers.set(file, fileReader(file, onRead));
  return (from, to) => readers.get(file)(from, to);
}

function freshReaders() {
  for (const f of readers.keys()) readers.set(f, fileReader(f, onRead));
}

// openInPlace makes an NDJSON file a dataset every query reads where it
// is, here and in each helper.
async function openInPlace(e, file) {
  const r = answer(await e.api.openFile(file.name, file.size, reader(file)));
  const old = placeFiles.get(r.dataset);
  if (old && old !== file) readers.delete(old);
  placeFiles.set(r.dataset, file);
  filled.delete(r.dataset);
  // Not waited for: a helper still starting opens it after, in its
  // queue's order, and before any fragment of a query (a helper whose
  // open failed fails its fragments, which this engine then scans).
  if (pool.helpers) pool.all({ op: "open", file }).catch(() => {});
  else pool.start(e.module, placeFiles);
  e.api.setHelpers(pool.size, (n, frag) => pool.run(Number(n), frag));
  return r;
}

// loaded forgets a file read in place that a load replaced.
async function loaded(r) {
  if (!r.inPlace && placeFiles.has(r.dataset)) {
    readers.delete(placeFiles.get(r.dataset));
    placeFiles.delete(r.dataset);
    await pool.all({ op: "drop", name: r.dataset }).catch(() => {});
  }
  return r;
}

async function load(id, file) {
  const e = await start();
  const { api } = e;
  await stopFill(e);
  if (/\.parquet$/i.test(file.name)) return loadParquet(id, api, file, []); // _time; the rest on demand
  if (/\.(ndjson|jsonl)$/i.test(file.name)) return openInPlace(e, file);
  if (!/\.csv$/i.test(file.name)) { // one document: read whole
    const bytes = new Uint8Array(await file.arrayBuffer());
    return answer(api.loadFile(file.name, bytes));
  }
  const began = performance.now();
  const begin = answer(api.beginLoad(file.name));
  let off = 0;
  let carry = new Uint8Array(0);
  let totals = { ingested: 0 };
  while (off < file.size) {
    stopIfCancelled(id, api, begin, file);
    const slice = await read(file, off, off + SLICE);
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

// loadParquet reads the 8-byte trailer, which says how long the footer
// is, then the footer, then each row group's chunks of the columns in
// fields (null: every column): a row group (64Ki rows as aplite writes
// them) is the most the tab holds at once. rows, when set, reads every
// column of only the first row groups holding that many rows (a take).
async function loadParquet(id, api, file, fields, rows) {
  const began = performance.now();
  const trailer = await read(file, Math.max(0, file.size - 8), file.size);
  if (trailer.length < 8 || String.fromCharCode(...trailer.subarray(4)) !== "PAR1") {
    throw new Error(`${file.name} is not a Parquet file: it does not end in PAR1`);
  }
  const tail = new DataView(trailer.buffer).getUint32(0, true) + 8;
  const footer = await read(file, Math.max(0, file.size - tail), file.size);
  const begin = answer(api.beginParquet(file.name, file.size, footer, fields, rows || 0));
  parquetFiles.set(begin.dataset, file);
  let bytes = footer.length;
  for (const [i, g] of begin.rowGroups.entries()) {
    stopIfCancelled(id, api, begin, file);
    const parts = await Promise.all(g.ranges.map(([from, to]) => read(file, from, to)));
    bytes += parts.reduce((n, p) => n + p.length, 0);
    const totals = answer(api.loadRowGroup(begin.id, i, parts));
    postMessage({ id, progress: { bytes, total: file.size, rows: totals.ingested, ms: performance.now() - began } });
  }
  return answer(api.endLoad(begin.id));
}

// query first reads the Parquet columns the query uses that are not
// loaded yet. A dataset whose reload fails halfway (the file changed or
// went away) is dropped rather than left with some of its row groups.
// A take of N rows reads only the first row groups holding N rows; when
// its answer comes out shorter (a where or the time range dropped rows),
// the whole file is read and the query runs again.
async function query(id, apl, range) {
  const e = await start();
  const { api } = e;
  asking++;
  await stopFill(e);
  try {
    const firsts = await readNeeds(id, api, answer(api.parquetNeeds(apl)));
    const res = await queryInPlace(id, e, apl, range);
    const short = firsts.filter((n) => resultRows(res) < n.rows);
    if (!short.length) return res;
    await readNeeds(id, api, short.map((n) => ({ dataset: n.dataset, fields: null })));
    return queryInPlace(id, e, apl, range);
  } finally {
    asking--;
    setTimeout(() => fill(e), 0);
  }
}

// Filling the kept columns (issue 26): a query over a file read in place
// keeps the columns it decoded, so a later query over the same fields
// reads nothing; one over a field not read yet read and decoded the whole
// file again (2-3x the time of aplite query -in). So once a query has
// run, while the page is idle, every engine decodes every field of its
// share of each file (the engine's fill), and later queries over any
// field read nothing. A query stops the fill first and starts it again
// when it ends: what was decoded is kept, so the fill goes on where it
// stopped. A file whose fill ended (done, or at the engine's memory
// limit, which its queries' answers then name) is not filled again.
let filling = null; // the running fill, a promise
let asking = 0; // the queries under way, which a fill must not run beside
const filled = new Set(); // the datasets filled
const FILL = "fill"; // the engine's id for cancel

function fill(e) {
  const names = [...placeFiles.keys()].filter((n) => !filled.has(n));
  if (filling || asking || !names.length) return;
  // Its reads say nothing of progress, even those a stopped fill left in
  // flight: the next query's reads are the only ones it counts.
  for (const f of readers.keys()) readers.set(f, fileReader(f, () => {}));
  const nodes = pool.size + 1; // as the engine cuts a file (setHelpers)
  filling = (async () => {
    for (const name of names) {
      const jobs = [e.api.fill(name, 0, nodes, FILL).then(answer)];
      for (const [i, w] of (pool.helpers || []).entries()) jobs.push(pool.send(w, { op: "fill", name, piece: i + 1, nodes }));
      const res = await Promise.allSettled(jobs);
      if (res.some((r) => r.status !== "fulfilled")) return; // stopped, or failed: the next query's end tries again
      filled.add(name);
    }
  })().finally(() => { filling = null; });
}

// stopFill stops the fill and waits for every engine to have stopped.
async function stopFill(e) {
  if (!filling) return;
  e.api.cancel(FILL);
  pool.cancel();
  await filling;
}

// queryInPlace runs a query that may read files in place, reporting the
// bytes read while it runs; cancel stops it and ends the helpers.
async function queryInPlace(id, e, apl, range) {
  if (placeFiles.size && !pool.helpers) {
    pool.start(e.module, placeFiles);
    e.api.setHelpers(pool.size, (n, frag) => pool.run(Number(n), frag));
  }
  Object.assign(reading, { id: placeFiles.size ? id : 0, bytes: 0, began: performance.now(), rows: 0 });
  reading.helperRows.clear();
  queries.add(id);
  try {
    await partialAnswer(id, e, apl, range);
    freshReaders();
    return answer(await e.api.queryAsync(apl, range, String(id)));
  } catch (err) {
    if (cancelled.delete(id)) throw new Error("the query was cancelled");
    throw err;
  } finally {
    queries.delete(id);
    reading.id = 0;
  }
}

// PREVIEW is how much of the files read in place a query's partial
// answer reads: the lines of their first MiB, about 1,500 events of a web
// log, which a started engine decodes in a tenth of a second where the
// whole file takes seconds. It was 4 MiB, whose decoding was most of the
// time from the drop to the first answer once the engines had started
// before the drop (issue 26: within 2 s). Files up to PARTIAL_OVER get
// no partial answer: the whole one comes about as soon.
const PREVIEW = 1 << 20;
const PARTIAL_OVER = 8 << 20;

// partialAnswer answers a query over large files read in place from
// their first PREVIEW bytes first ({id, partial}), so the page has a
// first answer at once and shows the whole one when it comes. A partial
// run that fails says nothing: the whole run reports the error (a field
// found only further on is an error in the first bytes alone).
async function partialAnswer(id, e, apl, range) {
  const total = totalBytes();
  if (total <= PARTIAL_OVER || inMemory(e, apl)) return;
  freshReaders();
  const res = JSON.parse(await e.api.queryAsync(apl, { ...range, prefix: PREVIEW }, String(id)));
  if (cancelled.has(id)) throw new Error("cancelled");
  if (res.error) return;
  const read = [...placeFiles.values()].reduce((n, f) => n + Math.min(f.size, PREVIEW), 0);
  postMessage({ id, partial: { result: res, bytes: read, total, ms: performance.now() - reading.began } });
}

// inMemory tells whether the engine keeps every column the query reads
// of the files read in place (decoded by earlier queries): it then reads
// nothing and answers in full at once, with no partial answer first.
function inMemory(e, apl) {
  return JSON.parse(e.api.inMemory(apl)) === true;
}

function totalBytes() {
  let n = 0;
  for (const f of placeFiles.values()) n += f.size;
  return n;
}


// readNeeds loads the Parquet columns (or first row groups) needs asks
// for, and returns the needs that read first row groups only.
async function readNeeds(id, api, needs) {
  for (const need of needs) {
    const file = parquetFiles.get(need.dataset);
    if (!file) continue;
    try {
      await loadParquet(id, api, file, need.fields, need.rows);
    } catch (err) {
      if (err.cancelled) { // usable again at once: _time, the rest on demand
        await loadParquet(0, api, file, []);
        throw new Error("the query was cancelled");
      }
      parquetFiles.delete(need.dataset);
      api.drop(need.dataset);
      throw new Error(`cannot read more of ${file.name} (${err.message}): open the file again`);
    }
  }
  return needs.filter((n) => n.rows > 0 && parquetFiles.has(n.dataset));
}

// resultRows is the row count of a query's first table.
function resultRows(res) {
  const t = res.tables && res.tables[0];
  return t && t.columns && t.columns.length ? t.columns[0].length : 0;
}

self.onmessage = async (e) => {
  const { id, op } = e.data;
  if (op === "state") { // what the worker waits on, for a test that finds it stuck
    const helpers = await pool.state();
    postMessage({ id, ok: true, result: { exited, log: engineLog, stalls: readStats.stalls, late: readStats.late, lateMaxMs: readStats.lateMaxMs, queries: [...queries], cancelled: [...cancelled], filling: !!filling, filled: [...filled], reading: { ...reading, helperRows: [...reading.helperRows] }, pool: pool.pending(), helpers } });
    return;
  }
  if (op === "cancel") {
    cancelled.add(e.data.target);
    if (queries.has(e.data.target) && engine) {
      (await engine).api.cancel(String(e.data.target));
      pool.cancel();
    }
    return;
  }
  try {
    let result;
    switch (op) {
      case "start":
        result = { startMs: (await start()).startMs, phases: (await start()).phases };
        break;
      case "warm": { // a file is on its way: start the helpers too
        const { module, startMs, phases } = await start();
        const began = performance.now();
        await pool.start(module, placeFiles);
        result = { startMs, phases, helpersMs: performance.now() - began, helpers: pool.size };
        break;
      }
      case "load":
        result = await loaded(await load(id, e.data.file));
        break;
      case "query":
        result = await query(id, e.data.apl, e.data.range);
        break;
      case "datasets":
        result = engine ? answer((await start()).api.datasets()) : [];
        break;
      case "memory": { // the engine's share of the tab: Go's heap lives in the WASM memory
        const { mem } = await start();
        const helpers = await pool.all({ op: "memory" }).catch(() => []);
        result = {
          wasmBytes: mem.buffer.byteLength + helpers.reduce((n, h) => n + h.wasmBytes, 0),
          helpers: helpers.length,
          jsHeapBytes: performance.memory ? performance.memory.usedJSHeapSize : null,
        };
        break;
      }
      case "functions":
        result = answer((await start()).api.functions());
        break;
      case "syntax": // the parser only: marks errors while the user types
        result = answer((await start()).api.syntax(e.data.apl));
        break;
      case "filterAt":
        result = answer((await start()).api.filterAt(e.data.apl));
        break;
      default:
        throw new Error(`unknown operation ${op}`);
    }
    postMessage({ id, ok: true, result });
  } catch (err) {
    postMessage({ id, ok: false, error: { message: err.message, pos: err.pos || null } });
  }
};
