package fn

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

// A chat with a system prompt, two user questions, a tool call and its
// result, in OpenAI's format.
const genChat = `[
 {"role":"system","content":"You are a helpful shopping assistant."},
 {"role":"user","content":"Hello, how are you?"},
 {"role":"assistant","content":"I'm good, thank you!"},
 {"role":"user","content":[{"type":"text","text":"What's your name?"}]},
 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
 {"role":"tool","tool_call_id":"c1","content":"{\"status\":\"success\",\"data\":{\"temperature\":72}}"},
 {"role":"Assistant","content":"My name is John."}
]`

// The same kind of exchange in the OpenTelemetry GenAI parts format and
// in Anthropic's content-block format.
const (
	genOTel      = `[{"role":"user","parts":[{"type":"text","content":"Hi there"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"x","name":"search"}]}]`
	genAnthropic = `[{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"t1","name":"lookup","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"42"}]}]`
)

func TestGenAIConversation(t *testing.T) {
	chat := bJ(genChat)
	otel, anth := bJ(genOTel), bJ(genAnthropic)
	bRunCases(t, []bCase{
		{"genai_extract_system_prompt", []any{chat}, "You are a helpful shopping assistant."},
		{"genai_extract_user_prompt", []any{chat}, "What's your name?"},
		{"genai_extract_assistant_response", []any{chat}, "My name is John."},
		{"genai_extract_system_prompt", []any{genChat}, "You are a helpful shopping assistant."},
		{"genai_extract_user_prompt", []any{xCol(vector.Dynamic, genChat)}, "What's your name?"},
		{"genai_extract_system_prompt", []any{bJ(`[{"role":"user","content":"x"}]`)}, ""},
		{"genai_extract_assistant_response", []any{bJ(`[]`)}, ""},
		{"genai_extract_user_prompt", []any{bJ(`{"messages":[{"role":"user","content":"from a body"}]}`)}, "from a body"},
		{"genai_extract_user_prompt", []any{"not json"}, nil},
		{"genai_extract_user_prompt", []any{nullDyn}, nil},
		{"genai_concat_contents", []any{bJ(`[{"role":"user","content":"Hello, how are you?"},{"role":"assistant","content":"I'm good, thank you!"},{"role":"user","content":"What's your name?"}]`), " / "},
			"Hello, how are you? / I'm good, thank you! / What's your name?"},
		{"genai_concat_contents", []any{bJ(`[{"role":"user","content":"a"},{"role":"assistant","content":null},{"role":"user","content":"b"}]`)}, "a b"},
		{"genai_concat_contents", []any{bJ(`[]`), ","}, ""},
		{"genai_message_roles", []any{chat}, bJ(`["system","user","assistant","user","assistant","tool","assistant"]`)},
		{"genai_message_roles", []any{bJ(`[{"content":"no role"}]`)}, bJ(`[null]`)},
		{"genai_conversation_turns", []any{chat}, int64(2)},
		{"genai_conversation_turns", []any{bJ(`[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"}]`)}, int64(1)},
		{"genai_conversation_turns", []any{bJ(`[]`)}, int64(0)},
		{"genai_get_content_by_index", []any{chat, 1}, "Hello, how are you?"},
		{"genai_get_content_by_index", []any{chat, -1}, "My name is John."},
		{"genai_get_content_by_index", []any{chat, 99}, ""},
		{"genai_get_content_by_index", []any{chat, nullInt}, nil},
		{"genai_get_role", []any{chat, 0}, "system"},
		{"genai_get_role", []any{chat, 7}, ""},
		{"genai_get_content_by_role", []any{chat, "assistant"}, "I'm good, thank you!"},
		{"genai_get_content_by_role", []any{chat, "SYSTEM"}, "You are a helpful shopping assistant."},
		{"genai_get_content_by_role", []any{chat, "developer"}, ""},
		{"genai_extract_tool_calls", []any{chat}, bJ(`[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]`)},
		{"genai_extract_tool_calls", []any{bJ(`[{"role":"user","content":"hi"}]`)}, nil},
		{"genai_extract_function_results", []any{chat}, bJ(`[{"status":"success","data":{"temperature":72}}]`)},
		{"genai_extract_function_results", []any{bJ(`[{"role":"user","content":"hi"}]`)}, nil},
		{"genai_has_tool_calls", []any{chat}, true},
		{"genai_has_tool_calls", []any{bJ(`[{"role":"user","content":"hi"}]`)}, false},
		{"genai_has_tool_calls", []any{nullStr}, nil},

		{"genai_extract_user_prompt", []any{otel}, "Hi there"},
		{"genai_extract_assistant_response", []any{otel}, ""},
		{"genai_has_tool_calls", []any{otel}, true},
		{"genai_extract_assistant_response", []any{anth}, "Let me check."},
		{"genai_extract_user_prompt", []any{anth}, ""},
		{"genai_extract_tool_calls", []any{anth}, bJ(`[{"type":"tool_use","id":"t1","name":"lookup","input":{}}]`)},
		{"genai_extract_function_results", []any{anth}, bJ(`[{"type":"tool_result","tool_use_id":"t1","content":"42"}]`)},

		{"genai_is_truncated", []any{chat, "length"}, true},
		{"genai_is_truncated", []any{chat, "stop"}, false},
		{"genai_is_truncated", []any{chat, "MAX_TOKENS"}, true},
		{"genai_is_truncated", []any{chat, `["length"]`}, true},
		{"genai_is_truncated", []any{chat, bJ(`["stop","tool_calls"]`)}, false},
		{"genai_is_truncated", []any{bJ(`[{"role":"assistant","content":"cut","finish_reason":"length"}]`), nullStr}, true},
		{"genai_is_truncated", []any{nullDyn, nullStr}, nil},

		{"genai_estimate_tokens", []any{"Hello world!"}, int64(3)},
		{"genai_estimate_tokens", []any{"Hello"}, int64(2)},
		{"genai_estimate_tokens", []any{"héllo wörld"}, int64(3)},
		{"genai_estimate_tokens", []any{""}, int64(0)},
		{"genai_estimate_tokens", []any{nullStr}, nil},
	})
}

func TestGenAIPricing(t *testing.T) {
	price := func(in, out float64) map[string]any {
		return map[string]any{"input_price_per_million": in, "output_price_per_million": out}
	}
	bRunCases(t, []bCase{
		{"genai_get_pricing", []any{"gpt-4"}, price(30, 60)},
		{"genai_get_pricing", []any{"gpt-3.5-turbo"}, price(0.5, 1.5)},
		{"genai_get_pricing", []any{"claude-3-opus-20240229"}, price(15, 75)},
		{"genai_get_pricing", []any{"openai/gpt-4o-2024-08-06"}, price(2.5, 10)},
		{"genai_get_pricing", []any{"GPT-4o"}, price(2.5, 10)},
		{"genai_get_pricing", []any{"gpt-4-0613"}, price(30, 60)},
		{"genai_get_pricing", []any{"gpt-4o-mini-2024-07-18"}, price(0.15, 0.6)},
		{"genai_get_pricing", []any{"anthropic.claude-3-5-sonnet-20241022-v2:0"}, price(3, 15)},
		{"genai_get_pricing", []any{"gpt-4x"}, nil},
		{"genai_get_pricing", []any{"unknown-model"}, nil},
		{"genai_get_pricing", []any{nullStr}, nil},
		{"genai_output_cost", []any{"gpt-4", 18000}, 1.08},
		{"genai_output_cost", []any{"gpt-4", 22000}, 1.32},
		{"genai_input_cost", []any{"gpt-3.5-turbo", 2000000}, 1.0},
		{"genai_cost", []any{"gpt-4", 1000, 500}, 0.06},
		{"genai_cost", []any{"claude-3-opus", 1e6, 1e6}, 90.0},
		{"genai_cost", []any{"gpt-4", 0, 0}, 0.0},
		{"genai_cost", []any{"nope", 1, 1}, nil},
		{"genai_cost", []any{"gpt-4", nullInt, 1}, nil},
	})
	bResultErr(t, "genai_cost", "argument 2 of genai_cost must be long or real, got string", vector.String, vector.String, vector.Int)
	bResultErr(t, "genai_message_roles", "argument 1 of genai_message_roles must be string or dynamic, got long", vector.Int)
}
