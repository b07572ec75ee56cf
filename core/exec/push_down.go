package exec

import (
	"github.com/aplite/aplite/core/store"
)

// pushDown folds a where on _time against constants into the scan's time
// range so whole parts are skipped by their min/max time. It reports
// whether the stage was absorbed (the row filter still runs in the scan).
func pushDown(pl *Pipeline, st Stage) bool {
	w, ok := st.(*whereStage)
	if !ok || len(pl.Stages) != 0 {
		return false
	}
	scan, ok := pl.Src.(*ScanSource)
	if !ok {
		return false
	}
	if scan.Sch.Index(store.TimeField) < 0 {
		return false
	}
	lo, hi, exact := w.Push.lo, w.Push.hi, w.Push.exact
	if lo != nil && (!scan.HasLo || *lo > scan.TimeLo) {
		scan.TimeLo, scan.HasLo = *lo, true
	}
	if hi != nil && (!scan.HasHi || *hi < scan.TimeHi) {
		scan.TimeHi, scan.HasHi = *hi, true
	}
	if !exact {
		scan.Prune = append(scan.Prune, w.Push.Prune...)
		scan.Granules = append(scan.Granules, w.Push.Granules...)
	}
	return exact
}
