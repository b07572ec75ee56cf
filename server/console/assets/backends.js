// The two places a query can run: the aplite server (HTTP API, with the
// user's token) and this browser (the WASM engine, over dropped files).
// Both answer the same calls with the API's shapes, so the rest of the
// console does not care which one it talks to.

// QueryFailure is an error in the query text; pos is {line, col} (1-based)
// when the engine said where.
export class QueryFailure extends Error {
  constructor(message, pos) {
    super(message);
    this.pos = pos;
  }
}

// AuthFailure means the token was refused: the console asks for another.
export class AuthFailure extends Error {}

// positionOf reads "line:col: message" (the text of engine errors) when
// an error carries no structured position.
export function positionOf(message) {
  const m = /^(\d+):(\d+):\s*/.exec(message || "");
  return m ? { pos: { line: +m[1], col: +m[2] }, message: message.slice(m[0].length) } : { pos: null, message };
}

export class ServerBackend {
  constructor({ token, org }) {
    this.token = token;
    this.org = org || "";
    this.kind = "server";
  }

  async request(method, path, body) {
    const headers = { Authorization: `Bearer ${this.token}`, Accept: "application/json" };
    if (this.org) headers["X-Axiom-Org-Id"] = this.org;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = { message: text };
    }
    if (res.ok) return data;
    const message = (data && data.message) || `${res.status} ${res.statusText}`;
    if (res.status === 401 || res.status === 403) throw new AuthFailure(message);
    const err = new Error(message);
    err.status = res.status;
    err.detail = data && data.detail;
    throw err;
  }

  // orgs lists the orgs a personal token may act in (no org header).
  async orgs() {
    const saved = this.org;
    this.org = "";
    try {
      return await this.request("GET", "/v2/orgs");
    } finally {
      this.org = saved;
    }
  }

  async datasets() {
    const list = await this.request("GET", "/v2/datasets");
    return (list || []).map((d) => ({ name: d.name, description: d.description || "" }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async fields(name) {
    return (await this.request("GET", `/v2/datasets/${encodeURIComponent(name)}/fields`)) || [];
  }

  async query(apl, range) {
    const body = { apl };
    if (range.start) body.startTime = range.start;
    if (range.end) body.endTime = range.end;
    try {
      return await this.request("POST", "/v1/datasets/_apl?format=tabular", body);
    } catch (e) {
      if (e.status === 400 && e.detail && e.detail.line) {
        throw new QueryFailure(e.detail.message || e.message, { line: e.detail.line, col: e.detail.column || 1 });
      }
      if (e.status === 400) {
        const p = positionOf(e.message);
        throw new QueryFailure(p.message, p.pos);
      }
      throw e;
    }
  }
}

let engine = null; // the promise of the WASM engine, loaded once per page

// engineStats records the engine's start-up time (shown to tests and
// devtools through window.apliteConsole).
export const engineStats = { startMs: null };

// loadEngine fetches and starts aplite.wasm; the global aplite object is
// ready when the promise resolves.
export function loadEngine() {
  engine ??= (async () => {
    const began = performance.now();
    await import("./wasm_exec.js");
    const go = new Go();
    const url = new URL("./aplite.wasm", import.meta.url);
    let instance;
    try {
      ({ instance } = await WebAssembly.instantiateStreaming(fetch(url), go.importObject));
    } catch {
      // A proxy that rewrote the content type: fall back to bytes.
      const bytes = await (await fetch(url)).arrayBuffer();
      ({ instance } = await WebAssembly.instantiate(bytes, go.importObject));
    }
    go.run(instance); // returns once the Go main blocks, with aplite set
    if (!globalThis.aplite) throw new Error("the WASM engine did not start");
    // How long fetching, compiling and starting the engine took.
    engineStats.startMs = performance.now() - began;
    return globalThis.aplite;
  })();
  engine.catch(() => { engine = null; });
  return engine;
}

function answer(json) {
  const v = JSON.parse(json);
  if (v && v.error) {
    if (v.error.line) throw new QueryFailure(v.error.message, { line: v.error.line, col: v.error.col || 1 });
    throw new Error(v.error.message);
  }
  return v;
}

export class OfflineBackend {
  constructor() {
    this.kind = "offline";
    this.cache = [];
  }

  // loadFile reads a File (or Blob with a name) into a dataset named
  // after it, replacing one of the same name.
  async loadFile(file) {
    const api = await loadEngine();
    const bytes = new Uint8Array(await file.arrayBuffer());
    return answer(api.loadFile(file.name, bytes));
  }

  async datasets() {
    if (!globalThis.aplite) return [];
    this.cache = answer(globalThis.aplite.datasets());
    return this.cache.map((d) => ({ name: d.name, numEvents: d.numEvents }));
  }

  async fields(name) {
    const d = this.cache.find((x) => x.name === name);
    return d ? d.fields : [];
  }

  async query(apl, range) {
    const api = await loadEngine();
    return answer(api.query(apl, { start: range.start || "", end: range.end || "" }));
  }
}
