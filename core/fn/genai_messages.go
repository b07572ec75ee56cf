package fn

// Reading GenAI conversations. A conversation is an array of message
// bags with a role and a content, as OpenAI-style chat APIs and the
// OpenTelemetry GenAI conventions record them. In ingested spans it often
// arrives as JSON text (attributes.gen_ai.input.messages), so a string
// argument is parsed first. Content comes in several shapes, all read by
// genContent: a string; an array of parts ({"type":"text","text":...} in
// the OpenAI and Anthropic forms, {"type":"text","content":...} in the
// OpenTelemetry form, or plain strings); or, in the OpenTelemetry form, a
// "parts" array instead of "content".

import (
	"strings"

	"github.com/aplite/aplite/vector"
)

// genMessagesAt reads row i as a list of messages. A bag with a
// "messages" array (a whole request body) is accepted too.
func genMessagesAt(v *vector.Vector, i int) ([]any, bool) {
	if v.IsNull(i) {
		return nil, false
	}
	var x any
	switch v.Type {
	case vector.String:
		x = ParseJSON(v.Str(i))
	case vector.Dynamic:
		x = v.Dyn(i)
		if s, ok := x.(string); ok {
			x = ParseJSON(s)
		}
	default:
		return nil, false
	}
	switch t := x.(type) {
	case []any:
		return t, true
	case map[string]any:
		if msgs, ok := t["messages"].([]any); ok {
			return msgs, true
		}
	}
	return nil, false
}

// genRole returns a message's role, lower case, or "".
func genRole(m any) string {
	if bag, ok := m.(map[string]any); ok {
		if r, ok := bag["role"].(string); ok {
			return strings.ToLower(r)
		}
	}
	return ""
}

// genContent returns a message's text content; a message without text
// (an assistant turn that only calls tools) gives "".
func genContent(m any) string {
	bag, ok := m.(map[string]any)
	if !ok {
		return ""
	}
	c, has := bag["content"]
	if !has || c == nil {
		c = bag["parts"]
	}
	return genText(c)
}

// genText flattens a content value to text; parts are joined by a
// newline, and parts that carry no text (images, tool calls) are skipped.
func genText(c any) string {
	switch t := c.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		var texts []string
		for _, p := range t {
			if s := genPartText(p); s != "" {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n")
	case map[string]any:
		return genPartText(t)
	}
	return arrString(c)
}

func genPartText(p any) string {
	switch t := p.(type) {
	case string:
		return t
	case map[string]any:
		if typ, _ := t["type"].(string); typ != "" && typ != "text" && typ != "input_text" && typ != "output_text" {
			return ""
		}
		for _, k := range []string{"text", "content"} {
			if s, ok := t[k].(string); ok {
				return s
			}
		}
	}
	return ""
}

// genToolCalls collects the tool calls a conversation requests: OpenAI's
// tool_calls arrays and legacy function_call, and content parts of type
// tool_use (Anthropic) or tool_call (OpenTelemetry).
func genToolCalls(msgs []any) []any {
	var out []any
	for _, m := range msgs {
		bag, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if calls, ok := bag["tool_calls"].([]any); ok {
			out = append(out, calls...)
		}
		if fc, ok := bag["function_call"].(map[string]any); ok {
			out = append(out, fc)
		}
		out = append(out, genPartsOfType(bag, "tool_use", "tool_call")...)
	}
	return out
}

// genFunctionResults collects what tools returned: the content of
// messages with role tool or function (JSON text is parsed, so
// results[0].status works), and content parts of type tool_result
// (Anthropic) or tool_call_response (OpenTelemetry).
func genFunctionResults(msgs []any) []any {
	var out []any
	for _, m := range msgs {
		bag, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if r := genRole(m); r == "tool" || r == "function" {
			c := bag["content"]
			if s, isStr := c.(string); isStr {
				c = ParseJSON(s)
			}
			out = append(out, c)
			continue
		}
		out = append(out, genPartsOfType(bag, "tool_result", "tool_call_response")...)
	}
	return out
}

// genPartsOfType returns the content (or parts) entries whose type is one
// of types.
func genPartsOfType(bag map[string]any, types ...string) []any {
	var out []any
	for _, key := range []string{"content", "parts"} {
		parts, ok := bag[key].([]any)
		if !ok {
			continue
		}
		for _, p := range parts {
			pb, ok := p.(map[string]any)
			if !ok {
				continue
			}
			typ, _ := pb["type"].(string)
			for _, t := range types {
				if typ == t {
					out = append(out, pb)
				}
			}
		}
	}
	return out
}
