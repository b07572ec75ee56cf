package exec

import (
	"errors"
	"testing"
)

func TestWithNameOnce(t *testing.T) {
	cases := []struct{ name, msg, want string }{
		{"max", "argument 1 must be a number, got bool", "max: argument 1 must be a number, got bool"},
		{"substring", "argument 2 of substring must be long, got string", "argument 2 of substring must be long, got string"},
		// A longer name that contains the function's is not a mention.
		{"min", "argument 1 of minif must be bool", "min: argument 1 of minif must be bool"},
		{"log", "log: bad", "log: bad"},
	}
	for _, c := range cases {
		if got := WithName(c.name, c.msg); got != c.want {
			t.Errorf("withName(%q, %q) = %q, want %q", c.name, c.msg, got, c.want)
		}
	}
}

func TestWrapCallErrKeepsChain(t *testing.T) {
	base := errors.New("boom")
	err := wrapCallErr("f", base)
	if err.Error() != "f: boom" || !errors.Is(err, base) {
		t.Fatalf("got %v", err)
	}
}
