package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
)

// checkPatterns refuses a call whose constant regular-expression argument
// does not compile, at that argument's position: a user's mistake is a
// 400 before any row is read, not an error from the middle of a run.
func checkPatterns(f *fn.Func, args []*typed) error {
	for j, a := range args {
		if !a.IsConst() {
			continue
		}
		s, ok := a.ConstValue().(string)
		if !ok {
			continue
		}
		if err := fn.CheckPattern(f.Name, j, s); err != nil {
			return exec.SemErrAt(a.Span, "%v", err)
		}
	}
	return nil
}
