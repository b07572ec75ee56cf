package difftest

import (
	"context"
	"os"
	"strings"
	"testing"
)

// knownFault names a disagreement already reported to its owner (with
// a skipped test holding its reproduction), or returns "".
func knownFault(c Case) string {
	if strings.HasPrefix(c.Diff, DynamicKey) || c.Diff == "" && strings.HasPrefix(c.First, DynamicKey) {
		return "a dynamic group key shows 200 or \"200\", whichever of its group's values came first (TestKnownDynamicKeyShown)"
	}
	return ""
}

// TestKnownDynamicKeyShown: upstream_status is a number in the first
// half of the day and a string ("200") in the second; distinct (and
// summarize by) group 200 and "200" together and show the value the
// group met first, so the answer's type depends on the order in which
// workers or nodes merge: one node answers 200, two nodes "200".
// Found by the difftest (make difftest SEED=2 N=23, mode nodes).
func TestKnownDynamicKeyShown(t *testing.T) {
	if os.Getenv("DIFFTEST_KNOWN") == "" {
		t.Skip("known: a dynamic group key shows 200 or \"200\" by merge order (core/exec group keys); reported to the lead")
	}
	r, err := NewRig(Generate(Params{Seed: 2, Events: 3000, Chunks: 6, Dims: 30}), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q := Query{Src: "['logs']", Stages: []Stage{{Text: "distinct upstream_status", Order: 'r'}}}
	ctx := context.Background()
	if d := Diff(r.Answer(ctx, q.String(), Ref), r.Answer(ctx, q.String(), ModeDist), q.Order()); d != "" {
		t.Errorf("%s: two nodes: %s", q, d)
	}
}
