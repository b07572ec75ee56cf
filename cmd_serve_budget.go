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
// the budget leaves as margin. The caches the user left at their defaults shrink to
// fit a small budget. note says where the budget came from.
func memoryBudget(fs *flag.FlagSet, budget, memLimit string, engine *db.EngineOptions) (n int64, note string, err error) {
	switch {
	case budget == "off":
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
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["column-cache"] && engine.ColumnCacheBytes > n/4 {
		engine.ColumnCacheBytes = n / 4
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
