package core

import (
	"github.com/aplite/aplite/core/exec"
)

// applyCursor narrows a scan to the rows after the request's cursor in
// newest-first order.
func applyCursor(s *exec.ScanSource, req *exec.Request) {
	ns, ok := exec.ParseCursor(req.Cursor)
	if !ok {
		return
	}
	hi := ns
	if req.IncludeCursor {
		hi = ns + 1
	}
	if !s.HasHi || hi < s.TimeHi {
		s.TimeHi, s.HasHi = hi, true
	}
}
