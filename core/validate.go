package core

import (
	"context"
	"time"

	"github.com/aplite/aplite/core/exec"
)

// Validate parses and plans req as Query would, without reading any data:
// the errors a run would meet before its first row (syntax, unknown names
// and types, datasets the caller may not read, on every side of a join,
// union or lookup) come back as Query returns them. A server checks a
// query it stores (a monitor, a virtual field) with it at create time, so
// a stored query that cannot run is refused then, not at every run. The
// plan pins the datasets' snapshots only while it is built.
func (e *Engine) Validate(ctx context.Context, req *exec.Request) (err error) {
	defer exec.RecoverInto(&err)
	p, _, _, err := e.prepare(ctx, req, nil, time.Now())
	if err != nil {
		return err
	}
	p.release()
	return nil
}
