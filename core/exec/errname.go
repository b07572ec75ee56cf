package exec

import (
	"strings"

	"github.com/aplite/aplite/internal/srcpos"
)

// CallErrAt is callErr at a span, for what the execution reports.
func CallErrAt(sp srcpos.Span, name string, err error) error {
	return SemErrAt(sp, "%s", WithName(name, err.Error()))
}

// wrapCallErr is callErr for errors raised while running, which keep their
// chain for errors.Is.
func wrapCallErr(name string, err error) error {
	msg := err.Error()
	if named := WithName(name, msg); named != msg {
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

// WithName prefixes "name: " unless msg already names the function as a
// whole word.
func WithName(name, msg string) string {
	if mentions(msg, name) {
		return msg
	}
	return name + ": " + msg
}

func mentions(msg, name string) bool { return MentionAt(msg, name) >= 0 }

// MentionAt returns where msg names name as a whole word, or -1.
func MentionAt(msg, name string) int {
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

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
