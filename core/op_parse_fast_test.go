package core

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// TestFastMatchAgreesWithRegexp checks the simple-mode scanner against the
// regular expression it stands in for, on random texts over a small
// alphabet that makes constants recur.
func TestFastMatchAgreesWithRegexp(t *testing.T) {
	patterns := []string{
		`* "=" v "," *`,
		`k "=" v`,
		`k "=" v:long`,
		`* "=" n:long "," rest`,
		`* "x" a "x" b "x"`,
		`a "," b "," c`,
		`* "=" f:real`,
		`* "=" f:real ","`,
		`"a" * "=" b:bool "," *`,
		`* "==" v "," *`,
		`k "=" v ","`,
		`* "-" n:long "-" m:long`,
	}
	rng := rand.New(rand.NewPCG(7, 9))
	alphabet := []string{"a", "=", ",", "1", "2", "-", ".", "x", " ", "e", "true", "==", "1", "-", ","}
	for _, pat := range patterns {
		st, items := planSimpleParse(t, pat)
		if items == nil {
			t.Fatalf("%s: expected the fast scanner", pat)
		}
		hits := 0
		for round := 0; round < 20000; round++ {
			var sb strings.Builder
			for k := rng.IntN(12); k > 0; k-- {
				sb.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			s := sb.String()
			out := make([]string, len(st.Caps))
			ok, definite := exec.FastMatch(items, s, out)
			if !definite {
				continue
			}
			want, wantOK := regexpMatch(st, s)
			if ok != wantOK || (ok && !slices.Equal(out, want)) {
				t.Fatalf("pattern %s text %q: fast %v %q, regexp %v %q", pat, s, ok, out, wantOK, want)
			}
			if ok {
				hits++
			}
		}
		if hits == 0 {
			t.Errorf("pattern %s: no random text matched; the test proves nothing", pat)
		}
	}
}

func TestFastPatternShapes(t *testing.T) {
	for _, pat := range []string{`a b ","`, `* * "x" a`, `a * ","`} {
		if _, items := planSimpleParse(t, pat); items != nil {
			t.Errorf("%s: two adjacent non-constants must use the regexp", pat)
		}
	}
}

// planSimpleParse plans `parse kind=simple s with <pat>` over a string column.
func planSimpleParse(t *testing.T, pat string) (*exec.ParseStage, []exec.FastItem) {
	t.Helper()
	q, err := parser.Parse("T | parse s with " + pat)
	if err != nil {
		t.Fatal(err)
	}
	x := &exec.Ctx{Budget: exec.NewMemBudget(0), Fn: testFnContext()}
	p := &planner{e: NewEngine(nil), req: &exec.Request{}, fc: x.Fn, lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}}
	in := exec.Schema{{Name: "s", Type: vector.String}}
	st, err := p.planParse(in, q.Body.Ops[0].(*parser.ParseOp))
	if err != nil {
		t.Fatal(err)
	}
	built, err := exec.BuildStage(&st.nodes[0], in, agg.Context{})
	if err != nil {
		t.Fatal(err)
	}
	ps := built.(*exec.ParseStage)
	return ps, ps.Fast
}

// regexpMatch is parseStage.match without the fast path.
func regexpMatch(st *exec.ParseStage, s string) ([]string, bool) {
	fast := st.Fast
	st.Fast = nil
	defer func() { st.Fast = fast }()
	return st.Match(s)
}
