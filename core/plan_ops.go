package core

import (
	"fmt"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planOp plans one operator over input schema in.
func (p *planner) planOp(in exec.Schema, op parser.Operator) (exec.Stage, error) {
	switch op := op.(type) {
	case *parser.WhereOp:
		return p.planWhere(in, op)
	case *parser.ExtendOp:
		return p.planExtend(in, op)
	case *parser.ProjectOp:
		return p.planProject(in, op)
	case *parser.ProjectAwayOp:
		return planProjectAway(in, op)
	case *parser.ProjectKeepOp:
		return planProjectKeep(in, op)
	case *parser.ProjectRenameOp:
		return planProjectRename(in, op)
	case *parser.ProjectReorderOp:
		return planProjectReorder(in, op)
	case *parser.SummarizeOp:
		return p.planSummarizeExprs(in, op)
	case *parser.SortOp:
		return p.planSort(in, op.Keys)
	case *parser.TopOp:
		return p.planTop(in, op)
	case *parser.TakeOp:
		return p.planTake(in, op.N)
	case *parser.CountOp:
		return &exec.CountStage{}, nil
	case *parser.DistinctOp:
		return p.planDistinct(in, op)
	case *parser.GetSchemaOp:
		return &exec.GetSchemaStage{In: in}, nil
	case *parser.UnionOp:
		return p.planUnionOp(in, op)
	}
	if st, err := p.planMoreOps(in, op); st != nil || err != nil {
		return st, err
	}
	return nil, semErr(op, "operator %s is not supported yet", opName(op))
}

// opName names an operator for error messages.
func opName(op parser.Operator) string {
	return fmt.Sprintf("%T", op)[len("*parser."):]
}

// finalize adds what the service does to results that do not fix their
// own order and size: raw events come newest first, and at most
// DefaultLimit of them.
func (p *planner) finalize(pl *exec.Pipeline, top bool) *exec.Pipeline {
	if !isRaw(pl) {
		return pl
	}
	out := pl.Out()
	ti := out.Index(store.TimeField)
	limit := p.req.DefaultLimit
	if limit == 0 {
		limit = 1000
	}
	if !top {
		limit = -1
	}
	if ti >= 0 && out[ti].Type == vector.DateTime && scansDataset(pl) {
		key := exec.SortKey{E: exec.ColExpr(ti, out[ti], srcpos.Span{}), Desc: true, NullsLast: true}
		if limit > 0 {
			pl.Stages = append(pl.Stages, &exec.TopStage{In: out, N: int64(limit), Keys: []exec.SortKey{key}})
		} else {
			pl.Stages = append(pl.Stages, &exec.SortStage{In: out, Keys: []exec.SortKey{key}})
		}
		return pl
	}
	if limit > 0 && !hasTake(pl) {
		pl.Stages = append(pl.Stages, &exec.TakeStage{In: out, N: int64(limit)})
	}
	return pl
}

// isRaw reports whether the pipeline's rows are events rather than the
// result of an operator that fixes order or shape.
func isRaw(pl *exec.Pipeline) bool {
	for i := len(pl.Stages) - 1; i >= 0; i-- {
		switch pl.Stages[i].(type) {
		case *exec.SortStage, *exec.TopStage, *exec.SummarizeStage, *exec.CountStage, *exec.DistinctStage, *exec.GetSchemaStage, *exec.MakeSeriesStage:
			return false
		}
	}
	return true
}

func hasTake(pl *exec.Pipeline) bool {
	for _, st := range pl.Stages {
		if _, ok := st.(*exec.TakeStage); ok {
			return true
		}
	}
	return false
}

func scansDataset(pl *exec.Pipeline) bool {
	_, ok := pl.Src.(*exec.ScanSource)
	return ok
}

// virtualFields prepends the request's virtual fields of the scanned
// datasets as an extend.
func (p *planner) virtualFields(scan *exec.ScanSource, in exec.Schema) (exec.Stage, error) {
	var cols []*parser.NamedExpr
	for _, ds := range scan.Datasets {
		for _, vf := range p.req.VirtualFields[ds] {
			e, err := parser.ParseExpr(vf.Expression)
			if err != nil {
				return nil, fmt.Errorf("virtual field %s of %s: %w", vf.Name, ds, err)
			}
			cols = append(cols, &parser.NamedExpr{Name: vf.Name, Expr: e})
		}
	}
	if len(cols) == 0 {
		return nil, nil
	}
	return p.planExtend(in, &parser.ExtendOp{Cols: cols})
}
