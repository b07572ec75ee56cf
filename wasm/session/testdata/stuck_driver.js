// Drives the engine under Node through a query over a file read in place
// whose read never answers (a File.slice the browser never settles), as
// the console's soak saw: Cancel must end the query at once, and the next
// query, whose reads answer, must answer in full.
// argv: wasm_exec.js, aplite.wasm. Prints {cancelled, cancelMs, after} as JSON.
const fs = require("fs");
const [wasmExec, wasmPath] = process.argv.slice(2);
require(wasmExec);

const tick = () => new Promise((r) => setTimeout(r, 5));

(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), go.importObject);
  go.run(instance);
  const a = globalThis.aplite;
  const lines = [];
  for (let i = 0; i < 200000; i++) lines.push(JSON.stringify({ _time: "2024-03-26T11:51:29Z", n: i, s: "x".repeat(40) }));
  const text = Buffer.from(lines.join("\n") + "\n");
  let stuck = false; // while set, reads never settle
  let waiting = 0;
  const read = (from, to) => {
    if (!stuck) return Promise.resolve(new Uint8Array(text.subarray(from, to)));
    waiting++;
    return new Promise(() => {});
  };
  JSON.parse(await a.openFile("events.ndjson", text.length, read));
  stuck = true;
  const q = a.queryAsync("['events'] | summarize count()", {}, "q1");
  for (let i = 0; i < 1000 && !waiting; i++) await tick();
  if (!waiting) {
    console.log(JSON.stringify({ error: "the query never read the file" }));
    return;
  }
  const began = Date.now();
  a.cancel("q1");
  const cancelled = await Promise.race([q.then(JSON.parse), new Promise((r) => setTimeout(() => r(null), 3000))]);
  const cancelMs = Date.now() - began;
  if (!cancelled) {
    console.log(JSON.stringify({ error: "the cancelled query did not answer within 3 s: its read never settled" }));
    return;
  }
  stuck = false;
  const after = JSON.parse(await a.queryAsync("['events'] | summarize count()", {}, "q2"));
  console.log(JSON.stringify({ cancelled, cancelMs, after }));
})().catch((e) => {
  console.log(JSON.stringify({ error: String(e && e.message || e) }));
});
