// Runs aplite.wasm under Node for the Go tests: loads the datasets and
// answers the queries of a JSON job read from stdin, one JSON answer per
// query on stdout (as a JSON array of the strings aplite.query returned).
// Usage: node node_driver.js <wasm_exec.js> <aplite.wasm> < job.json
"use strict";
const fs = require("fs");
const [wasmExec, wasmFile] = process.argv.slice(2);
globalThis.crypto ??= require("crypto");
require(wasmExec);

const job = JSON.parse(fs.readFileSync(0, "utf8"));
const go = new Go();
WebAssembly.instantiate(fs.readFileSync(wasmFile), go.importObject).then((res) => {
	go.run(res.instance); // returns once main blocks: aplite is set by then
	const out = { loads: [], answers: [] };
	for (const d of job.datasets || []) {
		out.loads.push(JSON.parse(aplite.load(d.name, fs.readFileSync(d.file), { format: d.format || "", now: job.now })));
	}
	for (const q of job.queries || []) {
		out.answers.push(JSON.parse(aplite.query(q, { now: job.now, start: job.start || "", end: job.end || "" })));
	}
	out.datasets = JSON.parse(aplite.datasets());
	// Exit only once the pipe has taken everything: process.exit right
	// after an asynchronous write to a pipe truncates the output.
	process.stdout.write(JSON.stringify(out), () => process.exit(0));
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
