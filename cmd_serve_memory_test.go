package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// -memory-limit takes the sizes the other flags take and Go's own
// GOMEMLIMIT forms, and rejects anything else by name.
func TestSetMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	for in, want := range map[string]int64{"512M": 512 << 20, "1GiB": 1 << 30, "2048": 2048} {
		if err := setMemoryLimit(in); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := debug.SetMemoryLimit(-1); got != want {
			t.Errorf("%s: limit %d, want %d", in, got, want)
		}
	}
	debug.SetMemoryLimit(math.MaxInt64)
	for _, off := range []string{"", "off"} {
		if err := setMemoryLimit(off); err != nil || debug.SetMemoryLimit(-1) != math.MaxInt64 {
			t.Errorf("%q set a limit (%v)", off, err)
		}
	}
	if err := setMemoryLimit("lots"); err == nil {
		t.Error("a size that is not one was accepted")
	}
}
