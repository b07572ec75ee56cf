// Package gen generates realistic, seeded test data for aplite's
// benchmarks and tests: HTTP access logs shaped like Axiom's
// sample-http-logs and OpenTelemetry traces shaped like otel-demo-traces,
// written straight to NDJSON.
//
// Every benchmark in the repository draws its data from here, so numbers
// from different packages describe the same data. The output is a pure
// function of the seed (and of the events-per-day setting): the tables of
// URIs, user agents, cities and datacenters are fixed, and the draws come
// from one PCG stream per generator.
//
// An event looks like
//
//	{"_time":"2024-03-01T14:02:11.532018Z","id":"<32 hex>","method":"GET",
//	 "uri":"/api/v1/users/48210/orders","status":200,"req_duration_ms":23.118,
//	 "resp_body_size":1841,"user_agent":"Mozilla/5.0 (…)",
//	 "geo":{"city":"Berlin","country":"Germany"},"server_datacenter":"FRA",
//	 "is_tls":true}
//
// _time has microsecond precision (what proxies log) and follows a
// day/night traffic curve; about 3% of events are backfilled up to a few
// minutes late. uri has about 40,000 distinct paths with Zipf popularity;
// about 3% of events have no geo object and 2% of the rest no city.
// req_duration_ms is log-normal per kind of resource, rounded to µs.
//
// Shapes (NewWith, Options.Shape): New writes the Tidy shape above, every
// float with a decimal point. Real writes the same events as encoders do
// (whole floats such as 20 without a point, about 0.1% of
// req_duration_ms) and adds what real logs carry: a free-text message
// (a Zipf vocabulary of 20,000 words, CommonWord in ~2% and RareWord in
// ~0.001% of lines, request ids, stack traces after some server errors),
// trace_id in 60% of events, a high-cardinality client_ip, tags arrays,
// kubernetes.pod.labels.* nesting present only from 20% to 80% of each
// day, cache.* for assets, error.* for server errors, and upstream_status,
// a number in the first half of each day and a string in the second.
// Wide adds six of 300 sparse attr_* fields (int, float, string, bool) per
// event. bench/ uses Real unless APLITE_BENCH_SHAPE says otherwise.
//
// NewTraces generates a second shape, OpenTelemetry spans like Axiom's
// otel-demo-traces (shared/spec/apl.md §4.2): whole traces of the demo
// shop's flows (about 7.7 spans a trace, ~460 bytes a span as NDJSON),
// about 1.5% of traces failing with the error propagated to the root.
//
// DocsDatasets generates small datasets of the shapes Axiom's
// documentation queries (sample-http-logs with status as a string,
// otel-demo-traces with a timespan duration and attributes.custom as a
// map field, the GitHub event datasets, ai-logs, otel-demo-genai,
// axiom-audit and a few others), each tidy or messy (about 30% of the
// fields of each event missing, 10% of the numbers written as strings),
// for the test that runs every documented query (internal/docsquery).
//
// The package is pure Go and builds for WASM.
package gen
