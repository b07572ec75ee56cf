package fn

// GenAI pricing: genai_get_pricing, genai_cost, genai_input_cost and
// genai_output_cost. Prices are USD per million tokens. Axiom's pages give
// gpt-4 (30/60), gpt-3.5-turbo (0.5/1.5) and claude-3-opus (15 input);
// the rest of the table is the providers' published list prices for the
// common models. Model names match exactly, or by the longest table entry
// that the name extends with a "-suffix" (a dated snapshot such as
// gpt-4o-2024-08-06 or claude-3-5-sonnet-20241022); provider prefixes such
// as "openai/" or Bedrock's "anthropic." are ignored.

import (
	"strings"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "genai_get_pricing", Family: "genai", MinArgs: 1, MaxArgs: 1,
		Result: Sig("genai_get_pricing", vector.Dynamic, KString), Eval: evalGenPricing,
		Doc: "{input_price_per_million, output_price_per_million} in USD for a model; null when unknown."})
	Register(&Func{Name: "genai_cost", Family: "genai", MinArgs: 3, MaxArgs: 3,
		Result: Sig("genai_cost", vector.Float, KString, KNum, KNum), Eval: evalGenCost(true, true),
		Doc: "Cost in USD of a call from the model's input and output token counts; null for an unknown model."})
	Register(&Func{Name: "genai_input_cost", Family: "genai", MinArgs: 2, MaxArgs: 2,
		Result: Sig("genai_input_cost", vector.Float, KString, KNum), Eval: evalGenCost(true, false),
		Doc: "Cost in USD of the input (prompt) tokens for a model."})
	Register(&Func{Name: "genai_output_cost", Family: "genai", MinArgs: 2, MaxArgs: 2,
		Result: Sig("genai_output_cost", vector.Float, KString, KNum), Eval: evalGenCost(false, true),
		Doc: "Cost in USD of the output (completion) tokens for a model."})
}

// genPrice is a model's price in USD per million tokens.
type genPrice struct{ in, out float64 }

var genPrices = map[string]genPrice{
	// OpenAI
	"gpt-4":         {30, 60},
	"gpt-4-32k":     {60, 120},
	"gpt-4-turbo":   {10, 30},
	"gpt-4o":        {2.5, 10},
	"gpt-4o-mini":   {0.15, 0.6},
	"gpt-4.1":       {2, 8},
	"gpt-4.1-mini":  {0.4, 1.6},
	"gpt-4.1-nano":  {0.1, 0.4},
	"gpt-3.5-turbo": {0.5, 1.5},
	"gpt-5":         {1.25, 10},
	"gpt-5-mini":    {0.25, 2},
	"gpt-5-nano":    {0.05, 0.4},
	"o1":            {15, 60},
	"o1-mini":       {1.1, 4.4},
	"o3":            {2, 8},
	"o3-mini":       {1.1, 4.4},
	"o4-mini":       {1.1, 4.4},
	// Anthropic
	"claude-3-opus":     {15, 75},
	"claude-3-sonnet":   {3, 15},
	"claude-3-haiku":    {0.25, 1.25},
	"claude-3-5-sonnet": {3, 15},
	"claude-3-5-haiku":  {0.8, 4},
	"claude-3-7-sonnet": {3, 15},
	"claude-sonnet-4":   {3, 15},
	"claude-opus-4":     {15, 75},
	"claude-opus-4-1":   {15, 75},
	// Google
	"gemini-1.5-pro":   {1.25, 5},
	"gemini-1.5-flash": {0.075, 0.3},
	"gemini-2.0-flash": {0.1, 0.4},
	"gemini-2.5-pro":   {1.25, 10},
	"gemini-2.5-flash": {0.3, 2.5},
	// Mistral
	"mistral-large": {2, 6},
	"mistral-small": {0.2, 0.6},
}

// genLookupPrice finds the price of a model name.
func genLookupPrice(model string) (genPrice, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if k := strings.LastIndexByte(m, '/'); k >= 0 {
		m = m[k+1:]
	}
	for _, vendor := range []string{"anthropic.", "openai.", "google.", "mistral."} {
		m = strings.TrimPrefix(m, vendor)
	}
	if p, ok := genPrices[m]; ok {
		return p, true
	}
	best, found := "", false
	for k := range genPrices {
		if len(k) > len(best) && strings.HasPrefix(m, k+"-") {
			best, found = k, true
		}
	}
	return genPrices[best], found
}

func evalGenPricing(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return MapStrings(vector.Dynamic, args[0], n, func(s string) (any, bool) {
		p, ok := genLookupPrice(s)
		if !ok {
			return nil, false
		}
		return map[string]any{"input_price_per_million": p.in, "output_price_per_million": p.out}, true
	}), nil
}

// evalGenCost returns genai_cost (both sides), genai_input_cost or
// genai_output_cost; the token counts follow the model argument in that
// order.
func evalGenCost(input, output bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Float, args, n, func(i int) (float64, bool) {
			model, ok := ToString(args[0], i)
			if !ok {
				return 0, false
			}
			p, ok := genLookupPrice(model)
			if !ok {
				return 0, false
			}
			cost, pos := 0.0, 1
			for _, side := range []struct {
				on    bool
				price float64
			}{{input, p.in}, {output, p.out}} {
				if !side.on {
					continue
				}
				tokens, ok := ToFloat(args[pos], i)
				if !ok {
					return 0, false
				}
				cost += tokens * side.price / 1e6
				pos++
			}
			return cost, true
		}), nil
	}
}
