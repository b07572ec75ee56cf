package core

import (
	"path"
	"sort"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planProject(in exec.Schema, op *parser.ProjectOp) (*step, error) {
	var sch exec.Schema
	st := plan.Stage{Kind: plan.SProject}
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
				name = nextColumnName(sch)
			}
		}
		if sch.Index(name) >= 0 {
			return nil, semErr(ne, "column %q is projected twice", name)
		}
		sch = append(sch, exec.ColDef{Name: name, Type: e.Typ})
		st.Exprs = append(st.Exprs, e.Node)
	}
	st.Schema = fields(sch)
	return one(st, sch), nil
}

// picked is the columns a project-away, -keep, -rename or -reorder
// takes and the names it gives them.
type picked struct {
	Sch exec.Schema
	Idx []int
}

// pickStep is the step that outputs columns idx of in, named as sch says.
func pickStep(sch exec.Schema, idx []int) *step {
	return one(plan.Stage{Kind: plan.SPick, Schema: fields(sch), Idx: idx}, sch)
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

func planProjectAway(in exec.Schema, op *parser.ProjectAwayOp) (*step, error) {
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
	st := &picked{}
	for i, c := range in {
		if !drop[i] {
			st.Sch = append(st.Sch, c)
			st.Idx = append(st.Idx, i)
		}
	}
	return pickStep(st.Sch, st.Idx), nil
}

func planProjectKeep(in exec.Schema, op *parser.ProjectKeepOp) (*step, error) {
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
	st := &picked{}
	for i, c := range in {
		if keep[i] {
			st.Sch = append(st.Sch, c)
			st.Idx = append(st.Idx, i)
		}
	}
	return pickStep(st.Sch, st.Idx), nil
}

func planProjectRename(in exec.Schema, op *parser.ProjectRenameOp) (*step, error) {
	st := &picked{Sch: append(exec.Schema(nil), in...)}
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
	return pickStep(st.Sch, st.Idx), nil
}

// planProjectReorder puts the listed columns first, in the listed order
// (a wildcard entry sorts its matches by name when asked); the others keep
// their order after them. A bare `*` stands for those others where it is
// written, so `project-reorder a, *, b` puts a first and b last: the named
// entries are matched before the star takes what is left.
func planProjectReorder(in exec.Schema, op *parser.ProjectReorderOp) (*step, error) {
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
	st := &picked{}
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
	return pickStep(st.Sch, st.Idx), nil
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
