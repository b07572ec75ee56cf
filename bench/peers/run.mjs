// Side-by-side harness: the same generated NDJSON loaded into aplite (over
// HTTP, a real server), DuckDB and chDB (both in process), then the same
// queries timed in each. Prints aplite's median and its ratio to the best
// peer (below 1 means aplite is faster). Run it with `make peers`; the
// environment sets the size: PEERS_EVENTS (default 1000000), PEERS_RUNS
// (timed runs per query, default 7), PEERS_SHAPE (real, tidy or wide);
// PEERS_FILE names an NDJSON file made earlier by bench/peers/ndjson, to
// skip generating it (a 10M-event file takes minutes to write);
// PEERS_QUERIES=countif,q1 times only the queries of those ids.
import { spawn, execFileSync } from "node:child_process";
import http from "node:http";
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { Session } from "chdb";
import { queries as allQueries } from "./queries.mjs";

const root = resolve(import.meta.dirname, "../..");
const events = Number(process.env.PEERS_EVENTS ?? 1_000_000);
const runs = Number(process.env.PEERS_RUNS ?? 7);
const shape = process.env.PEERS_SHAPE ?? "real";
// PEERS_QUERIES (ids, comma-separated) times only those queries.
const only = process.env.PEERS_QUERIES?.split(",").filter(Boolean);
let queries = only ? allQueries.filter((q) => only.includes(q.id)) : allQueries;
if (only && queries.length !== only.length) throw new Error(`PEERS_QUERIES: unknown id in ${only}`);
const token = "xapt-peers000000000000000000000001";
const addr = "127.0.0.1:" + (18000 + Math.floor(Math.random() * 1000));
const work = mkdtempSync(join(tmpdir(), "aplite-peers-"));
const file = process.env.PEERS_FILE ? resolve(process.env.PEERS_FILE) : join(work, "events.ndjson");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();
function dirBytes(p) {
  let n = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    const q = join(p, e.name);
    n += e.isDirectory() ? dirBytes(q) : statSync(q).size;
  }
  return n;
}

async function main() {
  if (!process.env.PEERS_FILE) {
    console.error(`generating ${events} ${shape} events`);
    execFileSync("sh", ["-c", `go run ./bench/peers/ndjson -n ${events} -shape ${shape} > '${file}'`], { cwd: root, stdio: "inherit" });
  }
  execFileSync("go", ["build", "-o", join(work, "aplite"), "."], { cwd: root, stdio: "inherit" });
  const ndjsonBytes = statSync(file).size;
  const id = middleID(ndjsonBytes);
  queries = queries.map((q) => ({ ...q, apl: q.apl.replaceAll("$ID", id), duck: q.duck.replaceAll("$ID", id), ch: q.ch.replaceAll("$ID", id) }));

  const results = {}; // id -> {aplite, duckdb, chdb: median ms, first values}
  const load = {};

  // aplite
  const srv = spawn(join(work, "aplite"), ["serve", "-addr", addr, "-data", join(work, "aplite-data"), "-token", token], { stdio: ["ignore", "ignore", "inherit"] });
  try {
    await waitUp();
    await api("POST", "/v2/datasets", JSON.stringify({ name: "logs" }), "application/json");
    let t0 = now();
    await ingestFile();
    load.aplite = ms(t0);
    t0 = now();
    await sleep(10_000); // the measure: bytes on disk 10 s after the ingest stops
    load.apliteBytes = dirBytes(join(work, "aplite-data"));
    // Logs are searched most right after they arrive: the fresh queries
    // are timed now too, over the blocks the ingest sealed, before
    // compaction merges them (CompactAge, 30 s).
    load.apliteFreshBlocks = await numBlocks();
    load.apliteFreshAt = ms(t0) / 1000;
    load.freshLoadAvg = loadAvg();
    for (const q of queries.filter((q) => q.fresh)) {
      const r = await timeAplite(q);
      results[q.id] = { apliteFresh: r.median, apliteFreshFirst: r.first };
      console.error(`aplite ${q.id} ${r.median.toFixed(2)} ms, ${load.apliteFreshAt.toFixed(0)} s after the ingest (${r.parts})`);
    }
    load.apliteFreshBlocksAfter = await numBlocks();
    // Then wait for compaction to finish (the block count stays put for
    // 10 s, at most 240 s), so queries do not time the background merge,
    // as DuckDB's are timed after its CHECKPOINT. At 10M one merge of
    // about 1M rows takes longer than 3 s, so a 3 s rule started the
    // queries over 123 blocks with merges still running beside them.
    // Sealed blocks of full size merge once they are CompactAge (30 s)
    // old, so the count is not taken as settled before 40 s: at 1M the
    // 15 sealed blocks held still from 10 s to 30 s, and the "compacted"
    // queries ran over them.
    for (let last = -1, stable = 0, waited = 0; (stable < 10 || ms(t0) < 40_000) && waited < 240; waited++) {
      await sleep(1000);
      const n = await numBlocks();
      stable = n === last ? stable + 1 : 0;
      last = n;
      load.apliteBlocks = n;
    }
    load.apliteSettledS = ms(t0) / 1000 - 10; // the count last changed 10 s before
    for (const q of queries) {
      const r = await timeAplite(q);
      results[q.id] = { ...results[q.id], aplite: r.median, apliteFirst: r.first };
      console.error(`aplite ${q.id} ${r.median.toFixed(2)} ms (${r.parts})`);
    }
    load.apliteLaterS = ms(t0) / 1000;
    load.apliteBytesLater = dirBytes(join(work, "aplite-data"));
    load.aplitePeakMB = peakMB(srv.pid);
  } finally {
    srv.kill();
  }

  // DuckDB
  {
    const db = await DuckDBInstance.create(join(work, "duck.db"));
    const c = await db.connect();
    let t0 = now();
    await c.run(`CREATE TABLE logs AS SELECT * REPLACE (CAST(_time AS TIMESTAMPTZ) AS _time)
      FROM read_json('${file}', format = 'newline_delimited', sample_size = -1)`);
    await c.run("CHECKPOINT");
    load.duckdb = ms(t0);
    load.duckdbBytes = statSync(join(work, "duck.db")).size;
    for (const q of queries) {
      const first = (await c.runAndReadAll(q.duck)).getRows()[0]?.[0];
      const ts = [];
      for (let i = 0; i < runs; i++) {
        const t = now();
        await c.runAndReadAll(q.duck);
        ts.push(ms(t));
      }
      Object.assign(results[q.id], { duckdb: median(ts), duckdbFirst: first });
      console.error(`duckdb ${q.id} ${median(ts).toFixed(2)} ms`);
    }
    c.closeSync?.();
    load.duckdbPeakMB = process.resourceUsage().maxRSS / 1024;
  }

  // chDB
  {
    const s = new Session(join(work, "chdb"));
    let t0 = now();
    s.query(`CREATE TABLE logs ENGINE = MergeTree ORDER BY tuple() AS SELECT * REPLACE (parseDateTime64BestEffort(toString(_time), 6, 'UTC') AS _time) FROM file('${file}', JSONEachRow)
      SETTINGS input_format_max_rows_to_read_for_schema_inference = 100000000, input_format_max_bytes_to_read_for_schema_inference = 100000000000`);
    s.query("OPTIMIZE TABLE logs FINAL");
    load.chdb = ms(t0);
    load.chdbBytes = Number(s.query("SELECT sum(bytes_on_disk) FROM system.parts WHERE table = 'logs' AND active", "TSV").trim());
    for (const q of queries) {
      const first = JSON.parse(s.query(q.ch, "JSONCompact")).data[0]?.[0];
      const ts = [];
      for (let i = 0; i < runs; i++) {
        const t = now();
        s.query(q.ch, "JSONCompact");
        ts.push(ms(t));
      }
      Object.assign(results[q.id], { chdb: median(ts), chdbFirst: first });
      console.error(`chdb ${q.id} ${median(ts).toFixed(2)} ms`);
    }
    s.close();
    load.chdbPeakMB = process.resourceUsage().maxRSS / 1024;
  }

  report(results, load, ndjsonBytes);
}

// timeAplite runs q once for its answer, then runs times for the median.
async function timeAplite(q) {
  const body = JSON.stringify({ apl: "['logs'] | " + q.apl });
  const path = "/v1/datasets/_apl?format=tabular&nocache=true";
  const answer = JSON.parse(await api("POST", path, body, "application/json"));
  const first = firstValue(answer);
  const st = answer.status ?? {};
  const ts = [];
  for (let i = 0; i < runs; i++) {
    const t = now();
    await api("POST", path, body, "application/json");
    ts.push(ms(t));
  }
  return { median: median(ts), first, parts: `${st.blocksExamined} parts, ${st.rowsExamined} rows examined` };
}

// loadAvg is /proc/loadavg's three averages, or "?".
function loadAvg() {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

// peakMB is a process's peak resident set (VmHWM), or undefined where
// /proc does not say.
function peakMB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function numBlocks() {
  return JSON.parse(await api("GET", "/v1/datasets/logs/info", undefined, "application/json")).numBlocks;
}

// middleID is the id of the first whole event past the middle of the
// file: the id lookup's needle, one event of the whole set.
function middleID(size) {
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(1 << 20);
  const got = readSync(fd, buf, 0, buf.length, Math.floor(size / 2));
  closeSync(fd);
  const text = buf.subarray(0, got).toString();
  const start = text.indexOf("\n") + 1;
  return JSON.parse(text.slice(start, text.indexOf("\n", start))).id;
}

function report(results, load, ndjsonBytes) {
  const f = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  console.log(`\n${events} ${shape} events, ${(ndjsonBytes / events).toFixed(0)} B/event NDJSON, ${runs} timed runs per query (medians, ms)\n`);
  console.log("| query | aplite | DuckDB | chDB | aplite / best peer |");
  console.log("|---|---|---|---|---|");
  for (const q of queries) {
    const r = results[q.id];
    const best = Math.min(r.duckdb, r.chdb);
    let agree = "";
    if (q.check) {
      const vals = [r.apliteFirst, r.duckdbFirst, r.chdbFirst].map(Number);
      agree = vals.every((v) => v === vals[0]) ? "" : ` (counts differ: ${vals.join(" / ")})`;
    }
    console.log(`| ${q.id} \`${q.apl.replaceAll("|", "\\|")}\` | ${f(r.aplite)} | ${f(r.duckdb)} | ${f(r.chdb)} | **${(r.aplite / best).toFixed(2)}×**${agree} |`);
  }
  const fresh = queries.filter((q) => q.fresh);
  if (fresh.length && load.apliteFreshAt !== undefined) {
    console.log(`\nFresh data: aplite ${load.apliteFreshAt.toFixed(0)} s after the ingest over the ${load.apliteFreshBlocks} blocks it sealed (${load.apliteFreshBlocksAfter} when these queries were done), and again after compaction (above); the peers' figures are the ones above (medians, ms); load average when they began: ${load.freshLoadAvg}\n`);
    console.log("| query | aplite fresh | aplite compacted | best peer | fresh / best peer | compacted / best peer |");
    console.log("|---|---|---|---|---|---|");
    for (const q of fresh) {
      const r = results[q.id];
      const best = Math.min(r.duckdb, r.chdb);
      const agree = q.check && Number(r.apliteFreshFirst) !== Number(r.duckdbFirst) ? ` (fresh count ${r.apliteFreshFirst}, DuckDB ${r.duckdbFirst})` : "";
      console.log(`| ${q.id} | ${f(r.apliteFresh)} | ${f(r.aplite)} | ${f(best)} (${best === r.duckdb ? "DuckDB" : "chDB"}) | **${(r.apliteFresh / best).toFixed(2)}×**${agree} | ${(r.aplite / best).toFixed(2)}× |`);
    }
  }
  const evs = (t) => (events / (t / 1000) / 1000).toFixed(0) + "k ev/s";
  console.log(`\n| load | aplite (HTTP, 4 clients) | DuckDB (read_json) | chDB (JSONEachRow → MergeTree) |`);
  console.log("|---|---|---|---|");
  console.log(`| time | ${(load.aplite / 1000).toFixed(1)} s (${evs(load.aplite)}) | ${(load.duckdb / 1000).toFixed(1)} s (${evs(load.duckdb)}) | ${(load.chdb / 1000).toFixed(1)} s (${evs(load.chdb)}) |`);
  const b = (x) => (x / events).toFixed(1);
  console.log(`| bytes/event on disk | ${b(load.apliteBytes)} 10 s after the ingest, ${b(load.apliteBytesLater)} ${load.apliteLaterS.toFixed(0)} s after it (after the queries) | ${b(load.duckdbBytes)} | ${b(load.chdbBytes)} |`);
  const mb = (x) => (x === undefined ? "?" : x.toFixed(0) + " MB");
  // DuckDB and chDB run inside this node process, one after the other:
  // its peak after DuckDB is DuckDB's (with node's own), and after chDB
  // the larger of the two.
  console.log(`| peak RSS | ${mb(load.aplitePeakMB)} (the server, VmHWM) | ${mb(load.duckdbPeakMB)} (node with DuckDB) | ${mb(load.chdbPeakMB)} (node after DuckDB and chDB) |`);
  console.log(`\nload average at the end: ${loadAvg()}`);
  console.log(`\naplite's blocks settled (compaction done, count unchanged for 10 s) ${load.apliteSettledS.toFixed(0)} s after the ingest, at ${load.apliteBlocks} blocks; its queries ran after that.`);
}

function firstValue(tab) {
  const t = tab.tables?.[0];
  return t?.columns?.[0]?.[0];
}

// api calls aplite over node:http with kept-alive connections: fetch
// (undici) adds about 0.7 ms a call on this machine (print x = 1 answers in
// 0.2 ms over node:http, 0.95 ms over fetch), which is the client's cost,
// not the engine's.
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
function api(method, path, body, type) {
  const [host, port] = addr.split(":");
  const headers = { Authorization: `Bearer ${token}`, "X-Axiom-Org-Id": "default", "Content-Type": type };
  return new Promise((resolve, reject) => {
    const q = http.request({ host, port, path, method, headers, agent }, (r) => {
      const parts = [];
      r.on("data", (d) => parts.push(d));
      r.on("end", () => {
        const text = Buffer.concat(parts).toString();
        if (r.statusCode < 200 || r.statusCode > 299) reject(new Error(`${method} ${path}: HTTP ${r.statusCode}: ${text.slice(0, 300)}`));
        else resolve(text);
      });
      r.on("error", reject);
    });
    q.on("error", reject);
    q.end(body);
  });
}

async function waitUp() {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://${addr}/`);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error("aplite did not start on " + addr);
}

const sleep = (t) => new Promise((r) => setTimeout(r, t));

// ingestFile posts the file in ~4 MB bodies (cut at line ends) from four
// clients at once, reading raw bytes so the client costs little CPU.
async function ingestFile() {
  const fd = openSync(file, "r");
  const inflight = new Set();
  const post = async (body) => {
    const res = JSON.parse(await api("POST", "/v1/datasets/logs/ingest", body, "application/x-ndjson"));
    if (res.failed) throw new Error(`ingest: ${res.failed} events failed: ${JSON.stringify(res.failures?.[0])}`);
  };
  let carry = Buffer.alloc(0);
  for (;;) {
    const chunk = Buffer.allocUnsafe(4 << 20);
    const got = readSync(fd, chunk, 0, chunk.length, null);
    const data = Buffer.concat([carry, chunk.subarray(0, got)]);
    if (got === 0) {
      if (data.length) await post(data);
      break;
    }
    const cut = data.lastIndexOf(10) + 1;
    carry = Buffer.from(data.subarray(cut));
    if (cut === 0) continue; // a line longer than the chunk: read on
    const p = post(data.subarray(0, cut)).finally(() => inflight.delete(p));
    inflight.add(p);
    if (inflight.size >= 4) await Promise.race(inflight);
  }
  closeSync(fd);
  await Promise.all(inflight);
}

main().then(
  () => rmSync(work, { recursive: true, force: true }),
  (e) => {
    console.error(e);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  },
);
