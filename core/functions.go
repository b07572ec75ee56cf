package core

import (
	"strings"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
)

// FunctionInfo describes one function for the console's completion.
type FunctionInfo struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"` // "scalar" or "aggregation"
	Signature string `json:"signature"`
	Doc       string `json:"doc"`
}

// Functions lists every scalar function and aggregation the engine knows,
// for completion in the console and the WASM build
// (the registries behind `aplite functions`).
func Functions() []FunctionInfo {
	var out []FunctionInfo
	for _, f := range fn.All() {
		out = append(out, FunctionInfo{Name: f.Name, Kind: "scalar", Signature: signature(f.Name, f.MinArgs, f.MaxArgs), Doc: f.Doc})
	}
	for _, s := range agg.All() {
		out = append(out, FunctionInfo{Name: s.Name, Kind: "aggregation", Signature: signature(s.Name, s.MinArgs, s.MaxArgs), Doc: s.Doc})
	}
	return out
}

// signature renders name(a1, a2[, a3]) from the argument bounds.
func signature(name string, minArgs, maxArgs int) string {
	var b strings.Builder
	b.WriteString(name + "(")
	for i := 0; i < minArgs; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("arg" + string(rune('1'+i%9)))
	}
	switch {
	case maxArgs < 0:
		if minArgs > 0 {
			b.WriteString(", ")
		}
		b.WriteString("…")
	case maxArgs > minArgs:
		b.WriteString("[")
		for i := minArgs; i < maxArgs; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("arg" + string(rune('1'+i%9)))
		}
		b.WriteString("]")
	}
	return b.String() + ")"
}
