package exec

import "testing"

func TestSignature(t *testing.T) {
	for _, c := range []struct {
		min, max int
		want     string
	}{
		{0, 0, "f()"}, {1, 1, "f(arg1)"}, {1, 2, "f(arg1[, arg2])"}, {0, 1, "f([arg1])"},
		{2, -1, "f(arg1, arg2[, …])"}, {2, 60, "f(arg1, arg2[, …])"}, {10, 10, "f(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10)"},
	} {
		if got := signature("f", c.min, c.max); got != c.want {
			t.Errorf("signature(%d, %d) = %q, want %q", c.min, c.max, got, c.want)
		}
	}
	if len(Functions()) < 100 {
		t.Errorf("only %d functions listed", len(Functions()))
	}
}
