package main

import (
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server"
)

// memoryBudget resolves -memory-budget: a size, "off", or empty for the
// default, which is -memory-limit when that is set and otherwise a share
// of the memory cgroup's limit or of the host's memory. Unless the user
// set -memory-limit (or GOMEMLIMIT), 90% of the budget is also the
// collector's soft limit, so that the heap's garbage does not take what
// the budget leaves as margin. A column cache the user left at its
// default is sized to the machine: columnCacheShare of the budget (of
// the default budget with -memory-budget off); a result cache left at
// its default shrinks to fit a small budget. note says where the budget
// came from.
func memoryBudget(fs *flag.FlagSet, budget, memLimit string, engine *db.EngineOptions) (n int64, note string, err error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case budget == "off":
		if m, _ := server.DefaultMemoryBudget(); m > 0 && !set["column-cache"] {
			engine.ColumnCacheBytes = columnCacheFor(m)
		}
		return 0, "", nil
	case budget != "":
		if n, err = parseSize(budget); err != nil {
			return 0, "", fmt.Errorf("-memory-budget: %w", err)
		}
		note = "-memory-budget"
	case memLimit != "" && memLimit != "off":
		if n, err = parseSize(trimGiB(memLimit)); err != nil {
			return 0, "", fmt.Errorf("-memory-limit: %w", err)
		}
		note = "-memory-limit"
	default:
		var from string
		n, from = server.DefaultMemoryBudget()
		note = fmt.Sprintf("%.0f%% of %s", server.DefaultBudgetShare*100, from)
	}
	if n <= 0 {
		return 0, "", nil
	}
	if memLimit == "" {
		// A tenth below the budget: the collector then keeps the garbage
		// out of the margin the governor's watchdog acts on.
		debug.SetMemoryLimit(n - n/10)
	}
	if !set["column-cache"] {
		engine.ColumnCacheBytes = columnCacheFor(n)
	}
	if !set["result-cache"] && engine.ResultCacheBytes > n/16 {
		engine.ResultCacheBytes = n / 16
	}
	return n, note, nil
}

// trimGiB reads Go's GOMEMLIMIT spelling (1GiB) as parseSize's (1G).
func trimGiB(v string) string {
	if len(v) > 2 && v[len(v)-2:] == "iB" {
		return v[:len(v)-2]
	}
	return v
}

// columnCacheShare is the part of the memory budget the column cache may
// hold when -column-cache is left at auto. It is lent, not set aside: the
// governor takes it back as soon as queries need it (server/governor.go),
// so it can be large; it stops short of the whole pool so that one
// query's burst does not first have to empty the cache.
const columnCacheShare = 4

// columnCacheFor is the default column cache of a budget of n bytes.
func columnCacheFor(n int64) int64 { return max(n/columnCacheShare, 1) }
