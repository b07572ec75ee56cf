// Package server is aplite's HTTP API: the /v1 and /v2 endpoints of the
// Axiom API (ingest, APL queries, datasets, and the org resources), with
// the token permissions, rate limits and response shapes that the official
// clients expect unchanged (shared/spec/api.md and clients.md).
//
// It runs on fasthttp with fasthttp/router; JSON goes through sonic.
// Datasets live in the storage engine (core/store); everything else lives
// in a bbolt metadata file (server/meta) in the data directory.
//
// Every handler returns an error; the middleware in handler.go turns it
// into a JSON body {"code","message"} with the matching status, adds the
// X-Axiom-Trace-Id header, counts the request for /metrics and applies the
// org's rate limit. Authentication happens once per request, before the
// handler, and produces a principal that handlers ask for permission.
package server
