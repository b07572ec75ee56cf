package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/output"
)

// answer has the execution build the run's Output, with what only the
// planner knows of the run.
func (p *planner) answer(x *exec.Ctx, pl *exec.Pipeline, b *exec.Batch) *output.Output {
	return exec.Answer(x, pl, b, exec.RunInfo{Datasets: p.datasets, Start: p.req.Start, End: p.req.End, Snaps: p.snaps})
}
