package main

import (
	"flag"
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server"
)

// -memory-budget: a size, off, or the default; it becomes the collector's
// soft limit (less a tenth) unless -memory-limit is set, and shrinks the
// caches the user left at their defaults.
func TestMemoryBudgetFlag(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	parse := func(args ...string) *flag.FlagSet {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.String("column-cache", "1G", "")
		fs.String("result-cache", "256M", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	defaults := func() db.EngineOptions {
		return db.EngineOptions{ColumnCacheBytes: 1 << 30, ResultCacheBytes: 256 << 20}
	}

	e := defaults()
	n, note, err := memoryBudget(parse(), "1G", "", &e)
	if err != nil || n != 1<<30 || note != "-memory-budget" {
		t.Fatalf("1G: %d %q %v", n, note, err)
	}
	if got := debug.SetMemoryLimit(-1); got != (1<<30)-(1<<30)/10 {
		t.Errorf("soft limit %d, want 90%% of the budget", got)
	}
	if e.ColumnCacheBytes != 256<<20 || e.ResultCacheBytes != 64<<20 {
		t.Errorf("default caches under a 1 GB budget: %d, %d", e.ColumnCacheBytes, e.ResultCacheBytes)
	}

	e = defaults()
	debug.SetMemoryLimit(math.MaxInt64)
	if n, _, err = memoryBudget(parse("-column-cache", "1G"), "", "768M", &e); err != nil || n != 768<<20 {
		t.Fatalf("from -memory-limit: %d %v", n, err)
	}
	if debug.SetMemoryLimit(-1) != math.MaxInt64 || e.ColumnCacheBytes != 1<<30 {
		t.Errorf("-memory-limit's soft limit or the cache the user set was changed: %d", e.ColumnCacheBytes)
	}

	// The default column cache follows the budget, past the old fixed 1G.
	e = defaults()
	debug.SetMemoryLimit(math.MaxInt64)
	if _, _, err = memoryBudget(parse(), "16G", "", &e); err != nil || e.ColumnCacheBytes != 4<<30 {
		t.Errorf("the default column cache under a 16 GB budget: %d %v", e.ColumnCacheBytes, err)
	}

	e = defaults()
	if n, _, err = memoryBudget(parse(), "off", "", &e); err != nil || n != 0 {
		t.Errorf("off: %d %v", n, err)
	}
	if m, _ := server.DefaultMemoryBudget(); m > 0 && e.ColumnCacheBytes != m/4 {
		t.Errorf("with the budget off the column cache is %d, not a quarter of the machine's default budget %d", e.ColumnCacheBytes, m)
	}
	if _, _, err = memoryBudget(parse(), "lots", "", &e); err == nil || !strings.Contains(err.Error(), "-memory-budget") {
		t.Errorf("a bad size: %v", err)
	}
}
