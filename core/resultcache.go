package core

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/aplite/aplite/core/exec"
)

// cacheKey returns the result-cache key of a planned query, or "" when it
// must not be cached.
func cacheKey(req *exec.Request, pl *exec.Pipeline) string {
	lower := strings.ToLower(req.APL)
	for _, clock := range []string{"now(", "ago(", "bin_auto", "rand(", "ingestion_time", "cursor_current"} {
		if strings.Contains(lower, clock) {
			return ""
		}
	}
	var parts []string
	ok := true
	var walk func(s exec.Source)
	walk = func(s exec.Source) {
		switch s := s.(type) {
		case *exec.ScanSource:
			for _, p := range s.Parts {
				if !p.Part.Immutable() {
					ok = false
				}
				parts = append(parts, p.Part.ID())
			}
		case *exec.FilteredSource:
			walk(s.Src)
		case *exec.UnionSource, *exec.TableSource:
			// Sub-pipelines may scan buffers we cannot see from here.
			if _, isTable := s.(*exec.TableSource); !isTable || s.(*exec.TableSource).Eval != nil {
				ok = false
			}
		}
	}
	walk(pl.Src)
	if !ok || len(parts) == 0 {
		return ""
	}
	vars, _ := json.Marshal(req.Variables)
	// Virtual fields change what a query computes over the same blocks:
	// a redefined field must not be answered from the old definition.
	vfields, _ := json.Marshal(req.VirtualFields)
	allowed := "all"
	if req.Allowed != nil {
		// Permission checks ran while planning; the key need not vary.
		allowed = "checked"
	}
	return strings.Join([]string{req.APL, req.Start.Format(time.RFC3339Nano), req.End.Format(time.RFC3339Nano),
		string(vars), string(vfields), allowed, itoa(req.DefaultLimit), strings.Join(parts, ",")}, "\x00")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
