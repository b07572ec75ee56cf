// warmUp runs one query over a tiny NDJSON file read in place, then drops
// it. V8 compiles a WebAssembly function only when it is first called, and
// for this engine that is most of its start-up: a first query over a
// dropped file spent about a second compiling the reader, the JSON decoder
// and the operators it touched (issue 26: the first answer from the drop
// must come within 2 s). Done while the page is idle, the user's first
// query finds them compiled. The query touches what a first query over
// logs does: a file read in place, where, summarize by a field and by
// time, take.
const LINES = [
  { _time: "2024-01-01T00:00:00Z", status: 200, method: "GET", ms: 1.5, ok: true, geo: { city: "Paris" } },
  { _time: "2024-01-01T00:00:01Z", status: 404, method: "POST", ms: 20, ok: false, geo: { city: "Oslo" } },
  { _time: "2024-01-01T00:01:02Z", status: 500, method: "GET", ms: 300.25, ok: false, geo: { city: "Lima" } },
];
const TEXT = new TextEncoder().encode(LINES.map((l) => JSON.stringify(l)).join("\n") + "\n");
const QUERIES = [
  "| where status >= 400 | summarize count(), avg(ms), dcount(method) by status, bin(_time, 1m)",
  "| summarize count() by method",
  "| take 2",
];

// warmUp takes the engine's aplite object and answers when it is done; it
// never throws (a failed warm-up only leaves the compiling for later).
export async function warmUp(api) {
  let name = "";
  try {
    const r = JSON.parse(await api.openFile("aplite-warm-up.ndjson", TEXT.length, async (from, to) => TEXT.slice(from, to)));
    name = r.dataset || "";
    for (const q of QUERIES) await api.queryAsync(`['${name}'] ${q}`, {});
  } catch {
    // nothing to do: the first real query compiles what is left
  } finally {
    if (name) api.drop(name);
  }
}
