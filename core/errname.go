package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

// The function registries (core/fn, core/agg) word their errors as they
// see fit: core/fn names the function inside the sentence ("argument 1 of
// tolower must be string"), core/agg leaves the name to the caller. The
// planner adds the name only when the message lacks it, so a message names
// its function once ("max: argument 1 must be ...", never "max: max: ...").

// callErr is a semantic error at n about a call of function name.
func callErr(n parser.Node, name string, err error) error {
	return exec.CallErrAt(n.Span(), name, err)
}

// asCalled words a registry's message about canonical by the name the
// query used: `pack("a")` is told "pack takes keys and values in pairs",
// not "pack: bag_pack takes ...", a name the user never wrote.
func asCalled(msg, canonical, called string) string {
	if canonical == called {
		return msg
	}
	j := exec.MentionAt(msg, canonical)
	if j < 0 {
		return msg
	}
	return msg[:j] + called + msg[j+len(canonical):]
}
