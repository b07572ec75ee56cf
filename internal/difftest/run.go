package difftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Config is one run: N queries (or until Duration has passed, when
// set) over data sets made from seeds Seed, Seed+1, ..., PerData queries
// each.
type Config struct {
	Seed     int64
	N        int
	Duration time.Duration
	PerData  int
	Events   int // events of logs per data set; 0: by seed (EventsFor)
	Chunks   int
	Dims     int
	Dir      string               // where the stores go
	Logf     func(string, ...any) // progress; nil for none
	// Skip reports whether a disagreement is a known one (it is counted
	// under its mode and listed, but does not fail the run).
	Skip func(Case) string
	// Verbose logs every query and the engine's refusals (tuning the
	// grammar).
	Verbose bool
}

// Case is one disagreement: enough to re-run it.
type Case struct {
	Mode    string
	Params  Params
	Index   int    // the query's index in its data set (N=Index+1 reaches it)
	Query   string // as generated
	Minimal string // minimized
	Diff    string // on the minimized query
	First   string // on the query as generated
	Known   string // why it is a known fault, when Skip said so
}

// String is the report of a case, with the command that re-runs it.
func (c Case) String() string {
	if c.Diff == "" {
		c.Diff = "(the minimized query agreed when run again: the disagreement comes and goes; as generated: " + c.First + ")"
	}
	return fmt.Sprintf("mode %s, data %s, query #%d\n  query:     %s\n  minimized: %s\n  %s\n  re-run: make difftest SEED=%d N=%d",
		c.Mode, c.Params, c.Index, c.Query, c.Minimal, c.Diff, c.Params.Seed, c.Index+1)
}

// Stats are a run's counts.
type Stats struct {
	Queries   int            // queries generated
	Refused   int            // of which the engine refused (the other modes must refuse them alike)
	Datasets  int            // data sets generated
	Compared  map[string]int // comparisons made, by mode (TLP checks as tlp-<kind>)
	Disagreed map[string]int // disagreements, by mode
	Known     map[string]int // of which known faults, by mode
	Opaque    int            // queries compared by columns only (rows cut among ties)
	CacheHits int            // cache-mode answers that really came from the cache
	Fragments int64          // fragments node b ran
	Cases     []Case
	Elapsed   time.Duration
}

// String is the run's report: counts by mode.
func (s *Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "difftest: %d queries (%d refused by the engine, %d compared by columns only) over %d data sets in %.1f minutes; %d cache hits, %d fragments run by node b\n",
		s.Queries, s.Refused, s.Opaque, s.Datasets, s.Elapsed.Minutes(), s.CacheHits, s.Fragments)
	for _, m := range append(append([]Mode{}, Modes...), "tlp-where", "tlp-summarize", "tlp-join-left", "tlp-join-right", "wasm") {
		if n := s.Compared[string(m)]; n > 0 {
			fmt.Fprintf(&b, "  %-15s %6d compared, %d disagreed (%d of them known)\n", m, n, s.Disagreed[string(m)], s.Known[string(m)])
		}
	}
	return b.String()
}

// Run runs c and returns the counts; the disagreements are in Cases.
func Run(ctx context.Context, c Config) (*Stats, error) {
	s := &Stats{Compared: map[string]int{}, Disagreed: map[string]int{}, Known: map[string]int{}}
	began := time.Now()
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	logf := c.Logf
	for seed := c.Seed; ; seed++ {
		if c.Duration > 0 && time.Since(began) >= c.Duration || c.Duration <= 0 && s.Queries >= c.N || ctx.Err() != nil {
			break
		}
		n := c.PerData
		if c.Duration <= 0 {
			n = min(n, c.N-s.Queries)
		}
		p := Params{Seed: seed, Events: c.Events, Chunks: c.Chunks, Dims: c.Dims}
		if p.Events == 0 {
			p.Events = EventsFor(seed)
		}
		if err := runData(ctx, c, p, n, s); err != nil {
			return s, fmt.Errorf("data %s: %w", p, err)
		}
		s.Elapsed = time.Since(began)
		logf("%s: %d queries so far, %d disagreements, %.1f min", p, s.Queries, len(s.Cases), s.Elapsed.Minutes())
	}
	s.Elapsed = time.Since(began)
	return s, nil
}

// EventsFor is the size of the data set of a seed, so that the seed
// alone re-runs a case: most are small (fast queries), some have blocks
// of several thousand rows, where the dense group arrays and the
// count-fusing paths start (4096 rows a batch).
func EventsFor(seed int64) int {
	return []int{12000, 3000, 3000, 40000}[seed%4]
}

// runData generates one data set and n queries over it, and compares.
func runData(ctx context.Context, c Config, p Params, n int, s *Stats) error {
	dir, err := os.MkdirTemp(c.Dir, fmt.Sprintf("difftest-%d-", p.Seed))
	if err != nil {
		return err
	}
	rig, err := NewRig(Generate(p), dir)
	if err != nil {
		return err
	}
	defer rig.Close()
	s.Datasets++
	logs, err := rig.Schema(ctx, "logs")
	if err != nil {
		return err
	}
	dims, err := rig.Schema(ctx, "dims")
	if err != nil {
		return err
	}
	g := NewGen(p.Seed, rig.Data, logs, dims)
	record := func(cs Case) {
		s.Disagreed[cs.Mode]++
		if c.Skip != nil {
			cs.Known = c.Skip(cs)
		}
		if cs.Known != "" {
			s.Known[cs.Mode]++
		}
		s.Cases = append(s.Cases, cs)
		c.Logf("DISAGREEMENT %s", cs)
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		q := g.Query()
		t := g.TLP(i)
		s.Queries++
		if q.Order().Opaque {
			s.Opaque++
		}
		ref := rig.Answer(ctx, q.String(), Ref)
		if ref.Err != "" {
			s.Refused++
		}
		if c.Verbose {
			c.Logf("#%d %s\n    -> %d rows %s", i, q, ref.Rows(), clip(ref.Err))
		}
		for _, m := range Modes {
			got := rig.Answer(ctx, q.String(), m)
			s.Compared[string(m)]++
			if got.cacheHit {
				s.CacheHits++
			}
			if d := Diff(ref, got, q.Order()); d != "" {
				min, md := rig.minimize(ctx, q, m)
				record(Case{Mode: string(m), Params: p, Index: i, Query: q.String(), Minimal: min.String(), Diff: md, First: d})
			}
		}
		if d, ok := rig.Check(ctx, t); ok {
			s.Compared["tlp-"+t.Kind]++
			if d != "" {
				min, md := rig.minimizeTLP(ctx, t)
				record(Case{Mode: "tlp-" + t.Kind, Params: p, Index: i, Query: t.String(), Minimal: min.String(), Diff: md, First: d})
			}
		}
	}
	s.Fragments += rig.ran.Load()
	return nil
}

// Schema is a dataset's columns as getschema lists them.
func (r *Rig) Schema(ctx context.Context, dataset string) ([]Col, error) {
	a := r.Answer(ctx, "['"+dataset+"'] | getschema", Ref)
	if a.Err != "" {
		return nil, fmt.Errorf("getschema: %s", a.Err)
	}
	var cols []Col
	for _, row := range a.Tables[0].Rows {
		name, _ := row[0].(string)
		typ, _ := row[3].(string)
		cols = append(cols, Col{name, typ})
	}
	return cols, nil
}

// WriteData writes p's datasets as NDJSON files under dir (for the WASM
// mode and for a human re-running a case), returning their paths.
func WriteData(d *Data, dir string) (logs, dims string, err error) {
	logs, dims = filepath.Join(dir, "logs.ndjson"), filepath.Join(dir, "dims.ndjson")
	var all []byte
	for _, c := range d.Logs {
		all = append(all, c...)
	}
	if err = os.WriteFile(logs, all, 0o644); err == nil {
		err = os.WriteFile(dims, d.Dims, 0o644)
	}
	return logs, dims, err
}
