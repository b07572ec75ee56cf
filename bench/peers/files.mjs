// One query over a file in place: DuckDB reading NDJSON (read_json) or
// Parquet (read_parquet), in process. files.sh runs it beside
// `aplite query -in` on the same file and query.
// Usage: node files.mjs FILE QUERY — QUERY is an id of queries.mjs
// (q1..q7), take10, or dc-method (the summarize files.sh first timed).
import { DuckDBInstance } from "@duckdb/node-api";
import { queries } from "./queries.mjs";

const [file, id = "dc-method"] = process.argv.slice(2);
const extra = {
  "take10": "SELECT * FROM logs LIMIT 10",
  "dc-method": "SELECT server_datacenter, method, count(*), avg(req_duration_ms) FROM logs GROUP BY 1, 2",
};
const sql = extra[id] ?? queries.find((q) => q.id === id)?.duck;
if (!sql) throw new Error(`unknown query ${id}`);
const read = file.endsWith(".parquet") ? `read_parquet('${file}')` : `read_json('${file}', format='newline_delimited')`;
const t0 = process.hrtime.bigint();
const db = await DuckDBInstance.create(":memory:");
const c = await db.connect();
// read_json leaves this file's _time as text: cast it, as aplite parses it.
await c.run(`CREATE VIEW logs AS SELECT * REPLACE (CAST(_time AS TIMESTAMPTZ) AS _time) FROM ${read}`);
const r = await c.runAndReadAll(sql);
console.log(`duckdb: ${id}: ${r.getRows().length} rows in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2)} s`);
