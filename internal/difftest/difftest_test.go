package difftest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// envInt reads a setting of `make difftest` (DIFFTEST_SEED, ...).
func envInt(t *testing.T, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: not a number", name, s)
	}
	return n
}

// config is the run `make difftest` asks for through the environment,
// or, without DIFFTEST_N and DIFFTEST_MINUTES, the smoke `make test`
// runs: 60 queries over one small data set (3000 events).
func config(t *testing.T) Config {
	c := Config{
		Seed:    envInt(t, "DIFFTEST_SEED", 1),
		N:       int(envInt(t, "DIFFTEST_N", 60)),
		PerData: int(envInt(t, "DIFFTEST_PER_DATA", 100)),
		Events:  int(envInt(t, "DIFFTEST_EVENTS", 0)),
		Chunks:  int(envInt(t, "DIFFTEST_CHUNKS", 6)),
		Dims:    int(envInt(t, "DIFFTEST_DIMS", 30)),
		Dir:     t.TempDir(),
		Logf:    t.Logf,
		Verbose: os.Getenv("DIFFTEST_VERBOSE") != "",
	}
	if m := envInt(t, "DIFFTEST_MINUTES", 0); m > 0 {
		c.Duration = time.Duration(m) * time.Minute
	}
	return c
}

// TestDifftest generates queries and data and fails on any disagreement
// between the modes, or any partition that does not add up, that is not
// a known fault (known.go).
func TestDifftest(t *testing.T) {
	c := config(t)
	c.Skip = knownFault
	s, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(s.String())
	for _, cs := range s.Cases {
		if cs.Known != "" {
			t.Logf("known fault (%s):\n%s", cs.Known, cs)
			continue
		}
		t.Errorf("disagreement:\n%s", cs)
	}
	if s.Queries > 0 && s.Refused*2 > s.Queries {
		t.Errorf("the engine refused %d of %d generated queries: the grammar has drifted from the language", s.Refused, s.Queries)
	}
}
