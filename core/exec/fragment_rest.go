package exec

import (
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
)

// Rest fragments (plan FORMAT.md, "rest"): a query node sees only the
// blocks of its catalog version; the ingest node also holds the events
// it has not flushed yet. The query node sends the ingest node its
// fragment with every block it scans; the ingest node scans everything
// else it holds. Because the query node's blocks must all still be among
// the ingest node's (else a compaction has merged some of them into a
// block the rest would read again), the rest never repeats an event.

// restrictToRest narrows a scan to the parts whose keys are not in
// except, after checking that every key in except is one of them, and
// that the schema sch covers the parts it keeps.
func restrictToRest(s *ScanSource, except []string, sch Schema) error {
	skip := make(map[string]bool, len(except))
	for _, k := range except {
		skip[k] = true
	}
	kept := s.Parts[:0:0]
	for _, p := range s.Parts {
		if k := store.PartKey(p.Part); skip[k] {
			delete(skip, k)
			continue
		}
		kept = append(kept, p)
	}
	for k := range skip {
		return fmt.Errorf("%w: %s (compacted or trimmed since the sender's catalog)", ErrFragmentParts, k)
	}
	if err := schemaCovers(sch, kept); err != nil {
		return err
	}
	s.Parts = kept
	s.Sch = sch
	return nil
}

// schemaCovers checks that scanning parts with sch reads every column of
// theirs as a scan planned over them would: each field is in sch, with a
// type that unifies to sch's.
func schemaCovers(sch Schema, parts []scanPart) error {
	types := make(map[string]int, len(sch))
	for i, c := range sch {
		types[c.Name] = i
	}
	for _, p := range parts {
		for _, m := range p.Part.Columns() {
			i, ok := types[m.Key.Name]
			if !ok {
				return fmt.Errorf("%w: field %q", ErrFragmentSchema, m.Key.Name)
			}
			if t := sch[i].Type; unifyTypes(t, m.Key.Type) != t {
				return fmt.Errorf("%w: field %q is %v here, %v in the sender's plan", ErrFragmentSchema, m.Key.Name, m.Key.Type, t)
			}
		}
	}
	return nil
}

// runRest sends the ingest node the fragment pf as a rest scan of
// everything but the blocks except, and decodes its sinks.
func runRest(x *Ctx, d *Distribution, codec SinkCodec, frag Fragment, pf plan.Fragment, except []string) ([]sink, error) {
	pf.V, pf.Scan.Rest, pf.Scan.Parts = plan.RestVersion, true, except
	var err error
	if frag.Plan, err = pf.Encode(); err != nil {
		return nil, err
	}
	body, err := d.Run(x.Ctx, d.Ingest, &frag)
	if err != nil {
		return nil, err
	}
	return DecodeFragment(x, codec, body)
}

// restAnswer is what the rest leg of a distributed run brought back.
type restAnswer struct {
	sinks []sink
	err   error
}

// startRest runs the rest leg on its own goroutine, over everything but
// the blocks of parts; the channel delivers its answer.
func startRest(x *Ctx, d *Distribution, codec SinkCodec, frag Fragment, pf plan.Fragment, parts []scanPart) <-chan restAnswer {
	out := make(chan restAnswer, 1)
	except := make([]string, 0, len(parts))
	for _, p := range parts {
		if k := store.PartKey(p.Part); k != "" {
			except = append(except, k)
		}
	}
	go func() {
		var a restAnswer
		func() {
			defer RecoverInto(&a.err)
			a.sinks, a.err = runRest(x, d, codec, frag, pf, except)
		}()
		out <- a
	}()
	return out
}

// joinRest adds the rest leg's answer to sinks, this node's and the
// query nodes' partial states. When the ingest node no longer has all of
// this node's blocks, it is asked for everything instead and its answer
// replaces sinks; when it cannot answer, sinks stand and the answer says
// which events it lacks.
func joinRest(x *Ctx, d *Distribution, codec SinkCodec, frag Fragment, pf plan.Fragment, a restAnswer, sinks []sink) []sink {
	if a.err == nil {
		return append(sinks, a.sinks...)
	}
	if errors.Is(a.err, ErrFragmentParts) {
		all, err := runRest(x, d, codec, frag, pf, nil)
		if err == nil {
			return all
		}
		a.err = err
	}
	if d.OnFailure != nil {
		d.OnFailure(d.Ingest, a.err)
	}
	x.Notes = append(x.Notes, output.Message{Priority: "error", Count: 1, Code: "apl_partialresult_unflushed",
		Msg: fmt.Sprintf("dataset %s: the events the ingest node %s has not flushed yet are missing from this result (%v); they are included once flushed",
			pf.Scan.Dataset, d.Ingest, a.err)})
	return sinks
}

// NoteFlushedOnly notes, on a query node that has an ingest node to ask,
// that this query could not be cut into fragments and so read only
// flushed events.
func NoteFlushedOnly(x *Ctx, d *Distribution) {
	if d == nil || d.Ingest == "" {
		return
	}
	x.Notes = append(x.Notes, output.Message{Priority: "warn", Count: 1, Code: "apl_unflushed_not_read",
		Msg: fmt.Sprintf("this query runs whole on this node (it cannot be cut into fragments), so it reads only the events the ingest node %s has flushed", d.Ingest)})
}
