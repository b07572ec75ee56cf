package exec

import (
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
)

// FragmentPlan is the plan of a fragment of a pipeline: the scan src
// and stages, the streaming stages up to and with the first blocking
// one. ok is false when a stage or an expression has no plan form; the
// query then runs where it was received. The scan's blocks are left for
// the caller, which sets each node's own.
func FragmentPlan(src *ScanSource, stages []Stage) (*plan.Fragment, bool) {
	pf := &plan.Fragment{V: plan.Version, Scan: plan.Scan{Dataset: src.Datasets[0], Schema: schemaPlan(src.Sch)}}
	if src.HasLo {
		lo := src.TimeLo
		pf.Scan.Lo = &lo
	}
	if src.HasHi {
		hi := src.TimeHi
		pf.Scan.Hi = &hi
	}
	for _, st := range stages {
		p, ok := st.(planned)
		if !ok {
			return nil, false
		}
		ps, ok := p.toPlan()
		if !ok || !fragmentKinds[ps.Kind] {
			return nil, false
		}
		pf.Stages = append(pf.Stages, *ps)
	}
	return pf, true
}

// fragmentKinds are the stages a fragment may hold (buildStage builds
// them, and each reads nothing but its batch: redact and parse-kv carry
// their regular expressions as text). A join's right side and a union's
// legs read other tables than the fragment's blocks, and a sample's
// draws depend on the batches a node numbers: those stay on the node
// that received the query.
var fragmentKinds = map[plan.StageKind]bool{plan.SWhere: true, plan.SExtend: true, plan.SProject: true,
	plan.SPick: true, plan.SSummarize: true, plan.SCount: true, plan.STake: true, plan.STop: true,
	plan.SSort: true, plan.SDistinct: true, plan.SParse: true, plan.SMvExpand: true,
	plan.SRedact: true, plan.SParseKv: true}

// BuildFragment builds the pipeline of pf over the blocks of snap it
// names: the scan with the plan's schema and time bounds, then each
// Stage from its node. A where right above the scan hands it its
// pushdowns as the sender's planner did (pushDown).
func BuildFragment(pf *plan.Fragment, snap *store.Snapshot, actx agg.Context) (*Pipeline, error) {
	// The schema is the plan's, so the dataset's is never worked out
	// from every block's columns, as planning a scan does.
	src := &ScanSource{Datasets: []string{snap.Dataset}}
	for _, p := range snap.Parts {
		src.Parts = append(src.Parts, scanPart{Part: p})
	}
	restrict := restrictToFragment
	if pf.Scan.Rest {
		restrict = restrictToRest
	}
	if err := restrict(src, pf.Scan.Parts, schemaFromPlan(pf.Scan.Schema)); err != nil {
		return nil, err
	}
	return buildFragmentOver(pf, src, actx)
}

// buildFragmentOver builds pf's stages over src, a scan of the blocks or
// stream piece the fragment names, within the plan's time bounds.
func buildFragmentOver(pf *plan.Fragment, src *ScanSource, actx agg.Context) (*Pipeline, error) {
	if pf.Scan.Lo != nil {
		src.TimeLo, src.HasLo = *pf.Scan.Lo, true
	}
	if pf.Scan.Hi != nil {
		src.TimeHi, src.HasHi = *pf.Scan.Hi, true
	}
	pl := &Pipeline{Src: src}
	err := pl.buildStages(pf.Stages, func(ps *plan.Stage, in Schema) (Stage, error) {
		return buildStage(ps, in, actx)
	})
	if err != nil {
		return nil, err
	}
	attachTopPrune(pl)
	return pl, nil
}
