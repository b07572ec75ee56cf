package core

import (
	"strings"

	"github.com/aplite/aplite/parser"
)

// The function registries (core/fn, core/agg) word their errors as they
// see fit: core/fn names the function inside the sentence ("argument 1 of
// tolower must be string"), core/agg leaves the name to the caller. The
// planner adds the name only when the message lacks it, so a message names
// its function once ("max: argument 1 must be ...", never "max: max: ...").

// callErr is a semantic error at n about a call of function name.
func callErr(n parser.Node, name string, err error) error {
	return semErr(n, "%s", withName(name, err.Error()))
}

// wrapCallErr is callErr for errors raised while running, which keep their
// chain for errors.Is.
func wrapCallErr(name string, err error) error {
	msg := err.Error()
	if named := withName(name, msg); named != msg {
		return &namedErr{msg: named, err: err}
	}
	return err
}

// namedErr prefixes a function name to an error it still unwraps to.
type namedErr struct {
	msg string
	err error
}

func (e *namedErr) Error() string { return e.msg }
func (e *namedErr) Unwrap() error { return e.err }

// withName prefixes "name: " unless msg already names the function as a
// whole word.
func withName(name, msg string) string {
	if mentions(msg, name) {
		return msg
	}
	return name + ": " + msg
}

func mentions(msg, name string) bool { return mentionAt(msg, name) >= 0 }

// mentionAt returns where msg names name as a whole word, or -1.
func mentionAt(msg, name string) int {
	for i := 0; ; {
		j := strings.Index(msg[i:], name)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(name)
		if (j == 0 || !identByte(msg[j-1])) && (end == len(msg) || !identByte(msg[end])) {
			return j
		}
		i = j + 1
	}
}

// asCalled words a registry's message about canonical by the name the
// query used: `pack("a")` is told "pack takes keys and values in pairs",
// not "pack: bag_pack takes ...", a name the user never wrote.
func asCalled(msg, canonical, called string) string {
	if canonical == called {
		return msg
	}
	j := mentionAt(msg, canonical)
	if j < 0 {
		return msg
	}
	return msg[:j] + called + msg[j+len(canonical):]
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
