package fn

// GenAI conversation functions: extracting prompts, responses, roles,
// tool calls and results, and measuring conversations. A null or
// unreadable conversation gives null; a readable one without the wanted
// message gives "" for the text functions, as Axiom's pages say.

import (
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// genKMessages is a conversation argument: a dynamic array, or JSON text.
var genKMessages = Of(vector.Dynamic, vector.String)

func init() {
	text := func(name, doc string, f func([]any) string) {
		Register(&Func{Name: name, Family: "genai", MinArgs: 1, MaxArgs: 1,
			Result: Sig(name, vector.String, genKMessages), Eval: evalGenText(f), Doc: doc})
	}
	text("genai_extract_system_prompt", "Content of the first system message, or \"\".", func(m []any) string { return genFind(m, "system", false) })
	text("genai_extract_user_prompt", "Content of the last user message, or \"\".", func(m []any) string { return genFind(m, "user", true) })
	text("genai_extract_assistant_response", "Content of the last assistant message, or \"\".", func(m []any) string { return genFind(m, "assistant", true) })

	Register(&Func{Name: "genai_concat_contents", Family: "genai", MinArgs: 1, MaxArgs: 2,
		Result: Sig("genai_concat_contents", vector.String, genKMessages, KString), Eval: evalGenConcat,
		Doc: "All message contents joined by a separator (a space by default)."})
	Register(&Func{Name: "genai_get_content_by_role", Family: "genai", MinArgs: 2, MaxArgs: 2,
		Result: Sig("genai_get_content_by_role", vector.String, genKMessages, KString), Eval: evalGenByRole,
		Doc: "Content of the first message with the given role, or \"\"."})
	Register(&Func{Name: "genai_get_content_by_index", Family: "genai", MinArgs: 2, MaxArgs: 2,
		Result: Sig("genai_get_content_by_index", vector.String, genKMessages, KInt), Eval: evalGenByIndex(genContent),
		Doc: "Content of the message at a zero-based index (negative from the end), or \"\"."})
	Register(&Func{Name: "genai_get_role", Family: "genai", MinArgs: 2, MaxArgs: 2,
		Result: Sig("genai_get_role", vector.String, genKMessages, KInt), Eval: evalGenByIndex(genRole),
		Doc: "Role of the message at a zero-based index (negative from the end), or \"\"."})
	Register(&Func{Name: "genai_message_roles", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_message_roles", vector.Dynamic, genKMessages), Eval: evalGenRoles,
		Doc: "The roles of the messages in order, as an array."})
	Register(&Func{Name: "genai_conversation_turns", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_conversation_turns", vector.Int, genKMessages), Eval: evalGenTurns,
		Doc: "Number of turns: user messages answered by an assistant message."})
	Register(&Func{Name: "genai_extract_tool_calls", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_extract_tool_calls", vector.Dynamic, genKMessages), Eval: evalGenList(genToolCalls),
		Doc: "The tool calls the conversation requests, as an array; null when there are none."})
	Register(&Func{Name: "genai_extract_function_results", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_extract_function_results", vector.Dynamic, genKMessages), Eval: evalGenList(genFunctionResults),
		Doc: "The results of tool or function calls, as an array; null when there are none."})
	Register(&Func{Name: "genai_has_tool_calls", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_has_tool_calls", vector.Bool, genKMessages), Eval: evalGenHasToolCalls,
		Doc: "True when the conversation requests a tool or function call."})
	Register(&Func{Name: "genai_is_truncated", Family: "genai", MinArgs: 2, MaxArgs: 2,
		Result: Sig("genai_is_truncated", vector.Bool, genKMessages, KAny), Eval: evalGenTruncated,
		Doc: "True when the finish reason (or the last message's) says the output hit its token limit."})
	Register(&Func{Name: "genai_estimate_tokens", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_estimate_tokens", vector.Int, KString), Eval: evalGenEstimateTokens,
		Doc: "Estimated token count of a text: one token per four characters, rounded up."})
}

// genFind returns the content of the first (or last) message with role.
func genFind(msgs []any, role string, last bool) string {
	for k := range msgs {
		j := k
		if last {
			j = len(msgs) - 1 - k
		}
		if genRole(msgs[j]) == role {
			return genContent(msgs[j])
		}
	}
	return ""
}

func evalGenText(f func([]any) string) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.String, args, n, func(i int) (string, bool) {
			msgs, ok := genMessagesAt(args[0], i)
			if !ok {
				return "", false
			}
			return f(msgs), true
		}), nil
	}
}

// evalGenConcat skips messages without text so that tool-call turns do
// not leave doubled separators.
func evalGenConcat(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		msgs, ok := genMessagesAt(args[0], i)
		if !ok {
			return "", false
		}
		sep := " "
		if len(args) > 1 {
			if sep, ok = ToString(args[1], i); !ok {
				return "", false
			}
		}
		var texts []string
		for _, m := range msgs {
			if c := genContent(m); c != "" {
				texts = append(texts, c)
			}
		}
		return strings.Join(texts, sep), true
	}), nil
}

func evalGenByRole(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		msgs, ok1 := genMessagesAt(args[0], i)
		role, ok2 := ToString(args[1], i)
		if !ok1 || !ok2 {
			return "", false
		}
		return genFind(msgs, strings.ToLower(role), false), true
	}), nil
}

func evalGenByIndex(f func(any) string) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.String, args, n, func(i int) (string, bool) {
			msgs, ok1 := genMessagesAt(args[0], i)
			idx, ok2 := ToInt(args[1], i)
			if !ok1 || !ok2 {
				return "", false
			}
			if j := arrIndex(idx, len(msgs)); j >= 0 && j < int64(len(msgs)) {
				return f(msgs[j]), true
			}
			return "", true
		}), nil
	}
}

func evalGenRoles(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		msgs, ok := genMessagesAt(args[0], i)
		if !ok {
			return nil, false
		}
		out := make([]any, len(msgs))
		for j, m := range msgs {
			if r := genRole(m); r != "" {
				out[j] = r
			}
		}
		return out, true
	}), nil
}

// evalGenTurns counts user messages that an assistant message answers;
// several user messages in a row before one answer are one turn.
func evalGenTurns(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Int, args, n, func(i int) (int64, bool) {
		msgs, ok := genMessagesAt(args[0], i)
		if !ok {
			return 0, false
		}
		turns, asked := int64(0), false
		for _, m := range msgs {
			switch genRole(m) {
			case "user":
				asked = true
			case "assistant":
				if asked {
					turns++
					asked = false
				}
			}
		}
		return turns, true
	}), nil
}

func evalGenList(f func([]any) []any) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			msgs, ok := genMessagesAt(args[0], i)
			if !ok {
				return nil, false
			}
			out := f(msgs)
			return out, len(out) > 0
		}), nil
	}
}

func evalGenHasToolCalls(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Bool, args, n, func(i int) (bool, bool) {
		msgs, ok := genMessagesAt(args[0], i)
		if !ok {
			return false, false
		}
		return len(genToolCalls(msgs)) > 0, true
	}), nil
}

// genTruncReasons are the finish reasons that mean the model stopped at
// its output limit: OpenAI's length, Anthropic's max_tokens, and the
// Responses API's max_output_tokens.
var genTruncReasons = map[string]bool{"length": true, "max_tokens": true, "max_output_tokens": true}

// evalGenTruncated reads the finish reason as a string or as an array of
// reasons (OpenTelemetry records gen_ai.response.finish_reasons as an
// array, often as JSON text). With a null reason it falls back to the
// finish_reason field of the last message.
func evalGenTruncated(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Bool, args, n, func(i int) (bool, bool) {
		reason := args[1].Value(i)
		if reason == nil {
			msgs, ok := genMessagesAt(args[0], i)
			if !ok || len(msgs) == 0 {
				return false, false
			}
			if bag, ok := msgs[len(msgs)-1].(map[string]any); ok {
				reason = bag["finish_reason"]
			}
		}
		if s, ok := reason.(string); ok {
			reason = ParseJSON(s)
		}
		switch t := reason.(type) {
		case string:
			return genTruncReasons[strings.ToLower(t)], true
		case []any:
			for _, r := range t {
				if s, ok := r.(string); ok && genTruncReasons[strings.ToLower(s)] {
					return true, true
				}
			}
			return false, true
		}
		return false, true
	}), nil
}

func evalGenEstimateTokens(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return MapStrings(vector.Int, args[0], n, func(s string) (int64, bool) {
		return int64((utf8.RuneCountInString(s) + 3) / 4), true
	}), nil
}
