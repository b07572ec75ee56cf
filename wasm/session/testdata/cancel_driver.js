// Drives the engine under Node through a query over a file read in place
// (two pieces of at least 16 MiB: one for a helper) whose helper answers only after the query was cancelled, as the
// console's worker does when Cancel stops its helpers: the late answer
// must not end the Go program, and the next query must answer.
// argv: wasm_exec.js, aplite.wasm. Prints {cancelled, after} as JSON.
const fs = require("fs");
const [wasmExec, wasmPath] = process.argv.slice(2);
require(wasmExec);

const tick = () => new Promise((r) => setTimeout(r, 5));

(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), go.importObject);
  let exited = false;
  go.run(instance).then(() => { exited = true; });
  const a = globalThis.aplite;
  const lines = [];
  for (let i = 0; i < 450000; i++) lines.push(JSON.stringify({ _time: "2024-03-26T11:51:29Z", n: i, s: "x".repeat(40) }));
  const text = Buffer.from(lines.join("\n") + "\n");
  const read = async (from, to) => new Uint8Array(text.subarray(from, to));
  JSON.parse(await a.openFile("events.ndjson", text.length, read));
  const held = [];
  a.setHelpers(1, () => new Promise((resolve, reject) => held.push({ resolve, reject })));
  const q = a.queryAsync("['events'] | summarize count()", {}, "q1");
  for (let i = 0; i < 1000 && !held.length; i++) await tick();
  if (!held.length) {
    console.log(JSON.stringify({ error: "the engine never asked its helper" }));
    return;
  }
  a.cancel("q1");
  const cancelled = JSON.parse(await q);
  for (const h of held) h.reject(new Error("the query was cancelled")); // as pool.stop()
  await tick();
  if (exited) {
    console.log(JSON.stringify({ cancelled, error: "the Go program exited after the late answer" }));
    return;
  }
  a.setHelpers(0, () => null);
  const after = JSON.parse(await a.queryAsync("['events'] | summarize count()", {}, "q2"));
  console.log(JSON.stringify({ cancelled, after }));
})().catch((e) => {
  console.log(JSON.stringify({ error: String(e && e.message || e) }));
});
