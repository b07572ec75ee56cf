package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
)

// applyCursor narrows a scan to the rows after the request's cursor in
// newest-first order.
func applyCursor(s *plan.Source, req *exec.Request) {
	ns, ok := exec.ParseCursor(req.Cursor)
	if !ok {
		return
	}
	hi := ns
	if req.IncludeCursor {
		hi = ns + 1
	}
	if s.Hi == nil || hi < *s.Hi {
		s.Hi = &hi
	}
}
