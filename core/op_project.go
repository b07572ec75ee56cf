package core

import (
	"path"
	"sort"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planProject(in exec.Schema, op *parser.ProjectOp) (exec.Stage, error) {
	st := &exec.ProjectStage{}
	c := p.compilerFor(in)
	for _, ne := range op.Cols {
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = e.Name
			if e.Col < 0 || name == "" {
				name = nextColumnName(st.Sch)
			}
		}
		if st.Sch.Index(name) >= 0 {
			return nil, semErr(ne, "column %q is projected twice", name)
		}
		st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: e.Typ})
		st.Exprs = append(st.Exprs, e)
	}
	return st, nil
}

// matchPattern reports whether a column name matches a project-away /
// project-keep pattern (`*` wildcards).
func matchPattern(pattern, name string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == name
	}
	ok, _ := path.Match(strings.ReplaceAll(pattern, "[", "\\["), name)
	return ok
}

func planProjectAway(in exec.Schema, op *parser.ProjectAwayOp) (exec.Stage, error) {
	drop := make([]bool, len(in))
	for _, cp := range op.Cols {
		hit := false
		for i, c := range in {
			if matchPattern(cp.Pattern, c.Name) {
				drop[i], hit = true, true
			}
		}
		if !hit && !strings.Contains(cp.Pattern, "*") {
			return nil, semErr(cp, "unknown field %q", cp.Pattern)
		}
	}
	st := &exec.PickStage{}
	for i, c := range in {
		if !drop[i] {
			st.Sch = append(st.Sch, c)
			st.Idx = append(st.Idx, i)
		}
	}
	return st, nil
}

func planProjectKeep(in exec.Schema, op *parser.ProjectKeepOp) (exec.Stage, error) {
	keep := make([]bool, len(in))
	for _, cp := range op.Cols {
		hit := false
		for i, c := range in {
			if matchPattern(cp.Pattern, c.Name) {
				keep[i], hit = true, true
			}
		}
		if !hit && !strings.Contains(cp.Pattern, "*") {
			return nil, semErr(cp, "unknown field %q", cp.Pattern)
		}
	}
	st := &exec.PickStage{}
	for i, c := range in {
		if keep[i] {
			st.Sch = append(st.Sch, c)
			st.Idx = append(st.Idx, i)
		}
	}
	return st, nil
}

func planProjectRename(in exec.Schema, op *parser.ProjectRenameOp) (exec.Stage, error) {
	st := &exec.PickStage{Sch: append(exec.Schema(nil), in...)}
	for i := range in {
		st.Idx = append(st.Idx, i)
	}
	for _, rp := range op.Pairs {
		i := st.Sch.Index(rp.Old)
		if i < 0 {
			return nil, semErr(rp, "unknown field %q", rp.Old)
		}
		if j := st.Sch.Index(rp.New); j >= 0 && j != i {
			return nil, semErr(rp, "column %q already exists", rp.New)
		}
		st.Sch[i].Name = rp.New
	}
	return st, nil
}

// planProjectReorder puts the listed columns first, in the listed order
// (a wildcard entry sorts its matches by name when asked); the others keep
// their order after them. A bare `*` stands for those others where it is
// written, so `project-reorder a, *, b` puts a first and b last: the named
// entries are matched before the star takes what is left.
func planProjectReorder(in exec.Schema, op *parser.ProjectReorderOp) (exec.Stage, error) {
	used := make([]bool, len(in))
	hits := make([][]int, len(op.Cols))
	rest := -1
	for k, rc := range op.Cols {
		if rc.Pattern == "*" && rest < 0 {
			rest = k
			continue
		}
		for i, c := range in {
			if !used[i] && matchPattern(rc.Pattern, c.Name) {
				hits[k] = append(hits[k], i)
				used[i] = true
			}
		}
		if len(hits[k]) == 0 && !strings.Contains(rc.Pattern, "*") {
			return nil, semErr(rc, "unknown field %q", rc.Pattern)
		}
	}
	var others []int
	for i := range in {
		if !used[i] {
			others = append(others, i)
		}
	}
	if rest >= 0 {
		hits[rest], others = others, nil
	}
	st := &exec.PickStage{}
	for k, rc := range op.Cols {
		sortReorder(in, hits[k], rc.Order)
		for _, i := range hits[k] {
			st.Sch = append(st.Sch, in[i])
			st.Idx = append(st.Idx, i)
		}
	}
	for _, i := range others {
		st.Sch = append(st.Sch, in[i])
		st.Idx = append(st.Idx, i)
	}
	return st, nil
}

// sortReorder orders one entry's matches by name for asc, desc,
// granny-asc and granny-desc (case-insensitive); no order keeps them.
func sortReorder(in exec.Schema, hits []int, order string) {
	if order == "" {
		return
	}
	sort.SliceStable(hits, func(a, b int) bool {
		x, y := in[hits[a]].Name, in[hits[b]].Name
		if strings.HasPrefix(order, "granny") {
			x, y = strings.ToLower(x), strings.ToLower(y)
		}
		if strings.HasSuffix(order, "desc") {
			return x > y
		}
		return x < y
	})
}
