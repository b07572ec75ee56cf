package db

import "testing"

func TestFailureTallyKeepsTheFirstReason(t *testing.T) {
	var f FailureTally
	f.Add(DecodeResult{Failed: 2, Failures: []Failure{{Error: "line 3: bad"}, {Error: "line 9: worse"}}})
	f.Add(DecodeResult{})
	f.Add(DecodeResult{Failed: 1, Failures: []Failure{{Error: "line 40: later"}}})
	if n, first := f.Take(); n != 3 || first != "line 3: bad" {
		t.Errorf("Take() = %d, %q; want 3, the first reason", n, first)
	}
	if n, first := f.Take(); n != 0 || first != "" {
		t.Errorf("a second Take() = %d, %q; want the count started again", n, first)
	}
}
