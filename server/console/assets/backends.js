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
    // Each dataset's size from its /info, as Axiom's sidebar shows it; a
    // dataset whose info fails is listed without.
    const sized = await Promise.all((list || []).map(async (d) => {
      const out = { name: d.name, description: d.description || "" };
      try {
        const info = await this.request("GET", `/v2/datasets/${encodeURIComponent(d.name)}/info`);
        Object.assign(out, { numEvents: info.numEvents, bytes: info.compressedBytes, inputBytes: info.inputBytes });
      } catch {
        // listed without its size
      }
      return out;
    }));
    return sized.sort((a, b) => a.name.localeCompare(b.name));
  }

  async fields(name) {
    return (await this.request("GET", `/v2/datasets/${encodeURIComponent(name)}/fields`)) || [];
  }

  async functions() {
    const res = await fetch("/console/functions.json");
    return res.ok ? res.json() : [];
  }

  // starred lists the org's starred queries; star saves one.
  async starred() {
    return (await this.request("GET", "/v2/apl-starred-queries")) || [];
  }

  async star(name, apl) {
    return this.request("POST", "/v2/apl-starred-queries", { name, kind: "apl", query: { apl } });
  }

  async unstar(id) {
    return this.request("DELETE", `/v2/apl-starred-queries/${encodeURIComponent(id)}`);
  }

  async monitors() {
    return (await this.request("GET", "/v2/monitors")) || [];
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
