package gen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Docs datasets of AI calls (ai-logs, otel-demo-genai) and Axiom's own
// audit log (axiom-audit).

var (
	aiModels  = []string{"gpt-4o", "gpt-4o-mini", "gpt-4-turbo", "gpt-3.5-turbo", "claude-3-5-sonnet-20241022", "claude-3-haiku-20240307", "gemini-1.5-pro"}
	aiPrompts = []string{"What's the weather in Paris?", "Summarize this log line for me", "Write a haiku about Kubernetes",
		"How do I convert a string to an int in Go?", "Translate 'hello' to German"}
	aiSystem  = []string{"You are a helpful assistant.", "You are a concise SRE assistant. Answer in one sentence."}
	aiReplies = []string{"It is sunny and 21°C in Paris.", "The request failed because the upstream timed out.",
		"Pods rise and fall / the scheduler hums softly / nodes drain into night", "Use strconv.Atoi.", "Hallo"}
	finishReasons = []string{"stop", "stop", "stop", "length", "tool_calls", "content_filter"}
)

// aiMessages draws an OpenAI-style conversation: an optional system
// prompt, user turns, assistant answers, sometimes a tool call and its
// result.
func aiMessages(r *rand.Rand) []any {
	var ms []any
	if r.IntN(3) > 0 {
		ms = append(ms, map[string]any{"role": "system", "content": aiSystem[r.IntN(len(aiSystem))]})
	}
	for turn := range 1 + r.IntN(3) {
		ms = append(ms, map[string]any{"role": "user", "content": aiPrompts[r.IntN(len(aiPrompts))]})
		if r.IntN(4) == 0 {
			id := "call_" + hex(r, 8)
			ms = append(ms, map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{
				"id": id, "type": "function",
				"function": map[string]any{"name": []string{"get_weather", "search_logs", "lookup_user"}[r.IntN(3)], "arguments": `{"q":"x"}`},
			}}})
			ms = append(ms, map[string]any{"role": "tool", "tool_call_id": id, "content": `{"result":"ok","turn":` + strconv.Itoa(turn) + `}`})
		}
		ms = append(ms, map[string]any{"role": "assistant", "content": aiReplies[r.IntN(len(aiReplies))]})
	}
	return ms
}

func aiLog(r *rand.Rand, t time.Time) map[string]any {
	in, out := int64(10+r.IntN(4000)), int64(5+r.IntN(1500))
	return map[string]any{
		"_time":         t.Format(time.RFC3339Nano),
		"messages":      aiMessages(r),
		"model":         aiModels[r.IntN(len(aiModels))],
		"input_tokens":  in,
		"output_tokens": out,
		"text":          aiPrompts[r.IntN(len(aiPrompts))],
		"finish_reason": finishReasons[r.IntN(len(finishReasons))],
		"user_id":       "user_" + strconv.Itoa(r.IntN(200)),
		"duration_ms":   math.Round(r.ExpFloat64()*80000) / 100,
	}
}

// genaiSpan is an otel-demo-genai span: an LLM call traced with the
// OpenTelemetry gen_ai semantic conventions.
func genaiSpan(r *rand.Rand, t time.Time) map[string]any {
	model := aiModels[r.IntN(len(aiModels))]
	op := []string{"chat", "chat", "chat", "embeddings", "execute_tool"}[r.IntN(5)]
	return map[string]any{
		"_time":    t.Format(time.RFC3339Nano),
		"trace_id": hex(r, 32),
		"span_id":  hex(r, 16),
		"name":     op + " " + model,
		"kind":     "client",
		"duration": (time.Duration(r.ExpFloat64()*2e9) / time.Microsecond * time.Microsecond).String(),
		"service":  map[string]any{"name": []string{"chat-api", "support-bot", "summarizer"}[r.IntN(3)]},
		"attributes": map[string]any{"gen_ai": map[string]any{
			"operation": map[string]any{"name": op},
			"system":    "openai",
			"request":   map[string]any{"model": model, "max_tokens": int64(1024), "temperature": 0.7},
			"response":  map[string]any{"model": model, "finish_reasons": []any{finishReasons[r.IntN(len(finishReasons))]}, "id": "chatcmpl-" + hex(r, 12)},
			"usage":     map[string]any{"input_tokens": int64(10 + r.IntN(4000)), "output_tokens": int64(5 + r.IntN(1500))},
			"input":     map[string]any{"messages": aiMessages(r)},
		}},
	}
}

// auditEvent is an axiom-audit record: queries with their cost, and the
// hourly usage of each dataset.
func auditEvent(r *rand.Rand, t time.Time) map[string]any {
	ds := []string{"sample-http-logs", "otel-demo-traces", "vercel", "audit"}[r.IntN(4)]
	e := map[string]any{
		"_time":    t.Format(time.RFC3339Nano),
		"source":   []string{"monitor", "app", "api", "dashboard"}[r.IntN(4)],
		"actor":    map[string]any{"id": "user-" + strconv.Itoa(r.IntN(20)), "email": "dev" + strconv.Itoa(r.IntN(20)) + "@example.com"},
		"resource": map[string]any{"id": "mon_" + hex(r, 8), "type": "monitor"},
	}
	switch r.IntN(3) {
	case 0:
		e["action"] = "runAPLQueryCost"
		e["properties"] = map[string]any{"query_cost_gbms": int64(r.IntN(5000)), "dataset": ds}
	case 1:
		e["action"] = "runAPLQuery"
		e["properties"] = map[string]any{"datasets": []any{ds}, "query": "['" + ds + "'] | count"}
	default:
		e["action"] = "usageCalculated"
		e["properties"] = map[string]any{"hourlyIngestBytes": r.Int64N(50 << 30), "dataset": ds}
	}
	return e
}
