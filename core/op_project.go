package core

import (
	"path"
	"sort"
	"strings"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// projectStage selects and computes the output columns. Plain column
// references are remapped without decoding; computed ones are evaluated.
type projectStage struct {
	sch   schema
	exprs []*expr
}

func (p *planner) planProject(in schema, op *parser.ProjectOp) (stage, error) {
	st := &projectStage{}
	c := p.compilerFor(in)
	for _, ne := range op.Cols {
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = e.name
			if e.col < 0 || name == "" {
				name = nextColumnName(st.sch)
			}
		}
		if st.sch.index(name) >= 0 {
			return nil, semErr(ne, "column %q is projected twice", name)
		}
		st.sch = append(st.sch, colDef{name, e.typ})
		st.exprs = append(st.exprs, e)
	}
	return st, nil
}

func (s *projectStage) out() schema { return s.sch }

func (s *projectStage) keepsNothing() {}

func (s *projectStage) apply(x *execCtx, b *batch) (*batch, error) {
	nb := &batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.exprs)), N: b.N, Sel: b.Sel}, scratch: b.scratch}
	for i, e := range s.exprs {
		if e.col >= 0 && e.eval != nil {
			// A plain column stays lazy: decoded only if someone reads it.
			nb.Cols[i] = b.Cols[e.col]
			continue
		}
		v, err := e.run(x, b)
		if err != nil {
			return nil, err
		}
		nb.Cols[i] = v
	}
	nb.load = func(i int) (*vector.Vector, error) { return b.col(s.exprs[i].col) }
	return nb, nil
}

// pickStage keeps columns by index: project-away, project-keep,
// project-rename and project-reorder all reduce to it.
type pickStage struct {
	sch schema
	idx []int
}

func (s *pickStage) out() schema { return s.sch }

func (s *pickStage) apply(x *execCtx, b *batch) (*batch, error) { return remap(b, s.idx), nil }

// matchPattern reports whether a column name matches a project-away /
// project-keep pattern (`*` wildcards).
func matchPattern(pattern, name string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == name
	}
	ok, _ := path.Match(strings.ReplaceAll(pattern, "[", "\\["), name)
	return ok
}

func planProjectAway(in schema, op *parser.ProjectAwayOp) (stage, error) {
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
	st := &pickStage{}
	for i, c := range in {
		if !drop[i] {
			st.sch = append(st.sch, c)
			st.idx = append(st.idx, i)
		}
	}
	return st, nil
}

func planProjectKeep(in schema, op *parser.ProjectKeepOp) (stage, error) {
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
	st := &pickStage{}
	for i, c := range in {
		if keep[i] {
			st.sch = append(st.sch, c)
			st.idx = append(st.idx, i)
		}
	}
	return st, nil
}

func planProjectRename(in schema, op *parser.ProjectRenameOp) (stage, error) {
	st := &pickStage{sch: append(schema(nil), in...)}
	for i := range in {
		st.idx = append(st.idx, i)
	}
	for _, rp := range op.Pairs {
		i := st.sch.index(rp.Old)
		if i < 0 {
			return nil, semErr(rp, "unknown field %q", rp.Old)
		}
		if j := st.sch.index(rp.New); j >= 0 && j != i {
			return nil, semErr(rp, "column %q already exists", rp.New)
		}
		st.sch[i].Name = rp.New
	}
	return st, nil
}

// planProjectReorder puts the listed columns first, in the listed order
// (a wildcard entry sorts its matches by name when asked); the others keep
// their order after them. A bare `*` stands for those others where it is
// written, so `project-reorder a, *, b` puts a first and b last: the named
// entries are matched before the star takes what is left.
func planProjectReorder(in schema, op *parser.ProjectReorderOp) (stage, error) {
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
	st := &pickStage{}
	for k, rc := range op.Cols {
		sortReorder(in, hits[k], rc.Order)
		for _, i := range hits[k] {
			st.sch = append(st.sch, in[i])
			st.idx = append(st.idx, i)
		}
	}
	for _, i := range others {
		st.sch = append(st.sch, in[i])
		st.idx = append(st.idx, i)
	}
	return st, nil
}

// sortReorder orders one entry's matches by name for asc, desc,
// granny-asc and granny-desc (case-insensitive); no order keeps them.
func sortReorder(in schema, hits []int, order string) {
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
