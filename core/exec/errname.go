package exec

import (
	"strings"

	"github.com/aplite/aplite/internal/srcpos"
)

// CallErrAt is callErr at a span, for what the execution reports.
func CallErrAt(sp srcpos.Span, name string, err error) error {
	return SemErrAt(sp, "%s", withName(name, err.Error()))
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

func mentions(msg, name string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !identByte(msg[j-1])) && (end == len(msg) || !identByte(msg[end])) {
			return true
		}
		i = j + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
