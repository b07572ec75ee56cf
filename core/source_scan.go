package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// newScanSource builds the scan of the given snapshots.
func newScanSource(snaps []*store.Snapshot) *exec.ScanSource {
	s := &exec.ScanSource{}
	types := map[string]vector.Type{}
	var order []string
	for di, snap := range snaps {
		s.Datasets = append(s.Datasets, snap.Dataset)
		for _, p := range snap.Parts {
			s.Parts = append(s.Parts, exec.ScanPart{Part: p, Dataset: di})
			for _, cm := range p.Columns() {
				t, seen := types[cm.Key.Name]
				if !seen {
					order = append(order, cm.Key.Name)
					types[cm.Key.Name] = cm.Key.Type
					continue
				}
				types[cm.Key.Name] = exec.UnifyTypes(t, cm.Key.Type)
			}
		}
	}
	s.Sch = exec.DatasetSchema(order, types)
	return s
}
