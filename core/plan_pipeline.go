package core

import (
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

func newBuildEnv(snaps []*store.Snapshot, actx agg.Context) *exec.BuildEnv {
	env := &exec.BuildEnv{Snaps: make(map[string]*store.Snapshot, len(snaps)), Actx: actx}
	for _, s := range snaps {
		env.Snaps[s.Dataset] = s
	}
	return env
}

// BuildEnv binds a plan to what p took while planning.
func (p *planner) buildEnv() *exec.BuildEnv {
	env := newBuildEnv(p.snaps, agg.Context{Start: p.req.Start, End: p.req.End})
	env.Streams = p.streams
	return env
}
