// One query over an NDJSON file in place: DuckDB's read_json, in process.
// files.sh runs it beside `aplite query -in` on the same file and query.
// Usage: node files.mjs FILE
import { DuckDBInstance } from "@duckdb/node-api";

const file = process.argv[2];
const t0 = process.hrtime.bigint();
const db = await DuckDBInstance.create(":memory:");
const c = await db.connect();
const r = await c.runAndReadAll(
  `SELECT server_datacenter, method, count(*), avg(req_duration_ms) FROM read_json('${file}', format='newline_delimited') GROUP BY 1, 2`);
console.log(`duckdb: ${r.getRows().length} groups in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2)} s`);
