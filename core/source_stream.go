package core

import (
	"github.com/aplite/aplite/core/exec"
)

// streamSource plans the scan of a stream, learning its types first.
func (p *planner) streamSource(t *exec.StreamTable) (*exec.ScanSource, error) {
	if p.req.Allowed != nil && !p.req.Allowed(t.Name) {
		return nil, &exec.ForbiddenError{Dataset: t.Name}
	}
	if err := t.Learn(); err != nil {
		return nil, err
	}
	p.noteDataset(t.Name)
	sch, types := t.Plan()
	s := &exec.ScanSource{Sch: sch, Datasets: []string{t.Name}, Stream: &exec.StreamScan{Table: t, Planned: types}}
	p.bound(s)
	return s, nil
}
