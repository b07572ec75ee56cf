// Answers generated queries with aplite.wasm under Node for the
// difftest's WASM mode. Reads {now, datasets: [{name, file}], queries}
// as JSON on stdin; writes {answers: [...]} with what aplite.query
// returned for each query, parsed.
// Usage: node node_driver.js <wasm_exec.js> <aplite.wasm> < job.json
"use strict";
const fs = require("fs");
const [wasmExec, wasmFile] = process.argv.slice(2);
globalThis.crypto ??= require("crypto");
require(wasmExec);

const job = JSON.parse(fs.readFileSync(0, "utf8"));
const go = new Go();
WebAssembly.instantiate(fs.readFileSync(wasmFile), go.importObject).then((res) => {
	go.run(res.instance);
	for (const d of job.datasets) {
		const r = JSON.parse(aplite.load(d.name, fs.readFileSync(d.file), { format: "ndjson", now: job.now }));
		if (r.error) throw new Error("load " + d.name + ": " + r.error.message);
	}
	const answers = job.queries.map((q) => JSON.parse(aplite.query(q, { now: job.now })));
	// Exit once the pipe has taken everything (an early exit truncates it).
	process.stdout.write(JSON.stringify({ answers }), () => process.exit(0));
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
