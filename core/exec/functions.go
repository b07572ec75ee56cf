package exec

import (
	"strconv"
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

// signature renders name(arg1, arg2[, arg3]) from the argument bounds;
// many optional arguments read as [, …].
func signature(name string, minArgs, maxArgs int) string {
	args := make([]string, 0, minArgs)
	for i := 1; i <= minArgs; i++ {
		args = append(args, "arg"+strconv.Itoa(i))
	}
	out := name + "(" + strings.Join(args, ", ")
	sep := ", "
	if minArgs == 0 {
		sep = ""
	}
	switch {
	case maxArgs < 0 || maxArgs-minArgs > 3:
		out += "[" + sep + "…]"
	case maxArgs > minArgs:
		var opt []string
		for i := minArgs + 1; i <= maxArgs; i++ {
			opt = append(opt, "arg"+strconv.Itoa(i))
		}
		out += "[" + sep + strings.Join(opt, ", ") + "]"
	}
	return out + ")"
}
