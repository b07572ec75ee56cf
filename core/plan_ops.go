package core

import (
	"fmt"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planOp plans one operator over input schema in.
func (p *planner) planOp(in schema, op parser.Operator) (stage, error) {
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
		return &countStage{}, nil
	case *parser.DistinctOp:
		return p.planDistinct(in, op)
	case *parser.GetSchemaOp:
		return &getSchemaStage{in: in}, nil
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

// pushDown folds a where on _time against constants into the scan's time
// range so whole parts are skipped by their min/max time. It reports
// whether the stage was absorbed (the row filter still runs in the scan).
func pushDown(pl *pipeline, st stage) bool {
	w, ok := st.(*whereStage)
	if !ok || len(pl.stages) != 0 {
		return false
	}
	scan, ok := pl.src.(*scanSource)
	if !ok {
		return false
	}
	if scan.sch.index(store.TimeField) < 0 {
		return false
	}
	lo, hi, exact := w.push.lo, w.push.hi, w.push.exact
	if lo != nil && (!scan.hasLo || *lo > scan.timeLo) {
		scan.timeLo, scan.hasLo = *lo, true
	}
	if hi != nil && (!scan.hasHi || *hi < scan.timeHi) {
		scan.timeHi, scan.hasHi = *hi, true
	}
	if !exact {
		scan.prune = append(scan.prune, w.push.prune...)
		scan.granules = append(scan.granules, w.push.granules...)
	}
	return exact
}

// finalize adds what the service does to results that do not fix their
// own order and size: raw events come newest first, and at most
// DefaultLimit of them.
func (p *planner) finalize(pl *pipeline, top bool) *pipeline {
	if !isRaw(pl) {
		return pl
	}
	out := pl.out()
	ti := out.index(store.TimeField)
	limit := p.req.DefaultLimit
	if limit == 0 {
		limit = 1000
	}
	if !top {
		limit = -1
	}
	if ti >= 0 && out[ti].Type == vector.DateTime && scansDataset(pl) {
		key := sortKey{e: colExpr(ti, out[ti], srcpos.Span{}), desc: true, nullsLast: true}
		if limit > 0 {
			pl.stages = append(pl.stages, &topStage{in: out, n: int64(limit), keys: []sortKey{key}})
		} else {
			pl.stages = append(pl.stages, &sortStage{in: out, keys: []sortKey{key}})
		}
		return pl
	}
	if limit > 0 && !hasTake(pl) {
		pl.stages = append(pl.stages, &takeStage{in: out, n: int64(limit)})
	}
	return pl
}

// isRaw reports whether the pipeline's rows are events rather than the
// result of an operator that fixes order or shape.
func isRaw(pl *pipeline) bool {
	for i := len(pl.stages) - 1; i >= 0; i-- {
		switch pl.stages[i].(type) {
		case *sortStage, *topStage, *summarizeStage, *countStage, *distinctStage, *getSchemaStage, *makeSeriesStage:
			return false
		}
	}
	return true
}

func hasTake(pl *pipeline) bool {
	for _, st := range pl.stages {
		if _, ok := st.(*takeStage); ok {
			return true
		}
	}
	return false
}

func scansDataset(pl *pipeline) bool {
	_, ok := pl.src.(*scanSource)
	return ok
}

// virtualFields prepends the request's virtual fields of the scanned
// datasets as an extend.
func (p *planner) virtualFields(scan *scanSource, in schema) (stage, error) {
	var cols []*parser.NamedExpr
	for _, ds := range scan.datasets {
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
