package gen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Docs datasets of the access-log family: sample-http-logs (and its
// aliases), and the small example datasets some pages use.

// docsHTTP draws sample-http-logs events (spec §4.1) from the access-log
// generator: the same requests, with the docs' field names (status as a
// string, resp_body_size_bytes, resp_header_size_bytes), a content_type,
// a UUID id and one of a few message sentences.
func docsHTTP(seed int64, n int) []map[string]any {
	g := New(seed).SetEventsPerDay(max(1, n/DocsDays))
	r := rand.New(rand.NewPCG(uint64(seed), docsStream("sample-http-logs")))
	out := make([]map[string]any, n)
	for i := range out {
		e := g.Event()
		id := e["id"].(string)
		e["id"] = id[:8] + "-" + id[8:12] + "-4" + id[13:16] + "-a" + id[17:20] + "-" + id[20:32]
		e["status"] = strconv.FormatInt(e["status"].(int64), 10)
		e["resp_body_size_bytes"] = e["resp_body_size"]
		delete(e, "resp_body_size")
		e["resp_header_size_bytes"] = int64(20 + r.IntN(80))
		e["content_type"] = contentTypeOf(e["uri"].(string), r)
		e["message"] = httpMessages[r.IntN(len(httpMessages))]
		out[i] = e
	}
	httpExampleFields(seed, out)
	return out
}

var contentTypes = []string{"text/html", "text/plain-charset=utf-8", "image/jpeg", "text/css", "text/csv",
	"application/json", "application/octet-stream", "image/png", "application/javascript"}

func contentTypeOf(uri string, r *rand.Rand) string {
	switch {
	case strings.HasSuffix(uri, ".css"):
		return "text/css"
	case strings.HasSuffix(uri, ".js"):
		return "application/javascript"
	case strings.HasSuffix(uri, ".png"):
		return "image/png"
	case strings.HasSuffix(uri, ".jpg"):
		return "image/jpeg"
	}
	return contentTypes[r.IntN(len(contentTypes))]
}

var httpMessages = []string{
	"QCD permutations were not solvable in linear time, expected compressed time",
	"Expected a new layer of particle physics but got a Higgs Boson",
	"switching to a different protocol for user 482 (login)",
	"GET request took longer than expected: cache miss",
	"Failed to reach the upstream service at 192.168.1.12:8080, retrying",
	"user=alice action=login status=ok duration=120ms",
	"Payment of $42.50 accepted from customer@example.com",
	"",
}

var levels = []string{"info", "info", "info", "debug", "warn", "error"}

// jsonPayloadLog is an application log line whose details are an object
// kept as a map field (json_payload), the shape the performance page
// queries both with parse_json and with json_payload.status.
func jsonPayloadLog(r *rand.Rand, t time.Time) map[string]any {
	lvl := levels[r.IntN(len(levels))]
	st := "ok"
	if lvl == "error" {
		st = "error"
	}
	return map[string]any{
		"_time":        t.Format(time.RFC3339Nano),
		"level":        lvl,
		"message":      httpMessages[r.IntN(len(httpMessages))],
		"user_id":      "user_" + strconv.Itoa(r.IntN(200)),
		"json_payload": map[string]any{"status": st, "latency_ms": int64(r.IntN(900)), "path": "/api/v1/items"},
	}
}

// hnItem is a Hacker News story or comment.
func hnItem(r *rand.Rand, t time.Time) map[string]any {
	typ := []string{"story", "comment", "comment", "comment", "job", "poll"}[r.IntN(6)]
	words := []string{"Show HN: a superman of log search", "Why batman uses Go", "Ask HN: observability on a budget",
		"Rust vs Go for databases", "The superman and batman of APIs", "A new columnar format"}
	return map[string]any{
		"_time":       t.Format(time.RFC3339Nano),
		"id":          int64(30_000_000 + r.IntN(10_000_000)),
		"type":        typ,
		"by":          ghActors[r.IntN(len(ghActors))],
		"title":       words[r.IntN(len(words))],
		"text":        httpMessages[r.IntN(len(httpMessages))],
		"score":       int64(r.IntN(500)),
		"descendants": int64(r.IntN(200)),
		"url":         "https://example.com/" + hex(r, 6),
	}
}

// epochEvent carries its own time as Unix seconds, milliseconds and
// microseconds.
func epochEvent(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time":         t.Format(time.RFC3339Nano),
		"epoch_seconds": t.Unix(),
		"epoch_ms":      t.UnixMilli(),
		"micro_ts":      t.UnixMicro(),
		"nano_ts":       t.UnixNano(),
		"event":         []string{"login", "logout", "purchase"}[r.IntN(3)],
	}
}
