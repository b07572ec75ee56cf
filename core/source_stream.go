package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
)

// streamSource plans the scan of a stream, learning its types first.
func (p *planner) streamSource(t *exec.StreamTable) (*plan.Source, error) {
	if p.req.Allowed != nil && !p.req.Allowed(t.Name) {
		return nil, &exec.ForbiddenError{Dataset: t.Name}
	}
	if err := t.Learn(); err != nil {
		return nil, err
	}
	p.noteDataset(t.Name)
	sch, _ := t.Plan()
	s := &plan.Source{Kind: plan.SrcStream, Schema: sch, Datasets: []string{t.Name}}
	p.bound(s)
	return s, nil
}
