package core

import (
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
)

// BuildEnv binds a plan to what p took while planning.
func (p *planner) buildEnv() *exec.BuildEnv {
	env := exec.NewBuildEnv(p.snaps, agg.Context{Start: p.req.Start, End: p.req.End})
	env.Streams = p.streams
	return env
}
