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
	_, kept, missing := splitByKeys(s.Parts, except)
	if missing != "" {
		return fmt.Errorf("%w: %s (compacted or trimmed since the sender's catalog)", ErrFragmentParts, missing)
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
	body, err := callNode(x.Ctx, d, d.Ingest, &frag)
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
// replaces sinks; when its events have fields this node's plan lacks, the
// query must run there (ErrNeedsIngest); when it cannot be reached, sinks
// stand and the answer says which events it lacks.
func joinRest(x *Ctx, d *Distribution, codec SinkCodec, frag Fragment, pf plan.Fragment, a restAnswer, sinks []sink) ([]sink, error) {
	if a.err == nil {
		return append(sinks, a.sinks...), nil
	}
	if errors.Is(a.err, ErrFragmentParts) {
		// The partial states so far are dropped, and so are their counts:
		// the ingest node's answer for everything brings its own.
		x.Stats = &scanStats{}
		all, err := runRest(x, d, codec, frag, pf, nil)
		if err == nil {
			return all, nil
		}
		a.err = err
	}
	if errors.Is(a.err, ErrFragmentSchema) {
		return nil, fmt.Errorf("%w: %v", ErrNeedsIngest, a.err)
	}
	if d.OnFailure != nil {
		d.OnFailure(d.Ingest, a.err)
	}
	if d.OnPartial != nil {
		d.OnPartial(d.Ingest, a.err)
	}
	x.Notes = append(x.Notes, unreachableNote(pf.Scan.Dataset, d.Ingest, a.err))
	return sinks, nil
}

// unreachableNote is the status message of an answer that lacks the
// unflushed events of an ingest node that could not be asked.
func unreachableNote(dataset, ingest string, err error) output.Message {
	what := "the events"
	if dataset != "" {
		what = "dataset " + dataset + ": the events"
	}
	return output.Message{Priority: "error", Count: 1, Code: "apl_partialresult_unflushed",
		Msg: fmt.Sprintf("%s the ingest node %s has not flushed yet are missing from this result (%v); they are included once flushed", what, ingest, err)}
}

// UnreachableIngest is the status message of an answer a query node gave
// alone because the ingest node it forwards to could not be reached.
func UnreachableIngest(ingest string, err error) output.Message {
	return unreachableNote("", ingest, err)
}

// NeedsIngest is ErrNeedsIngest for a query on a node with an ingest node
// to ask that cannot be cut into fragments; nil otherwise.
func NeedsIngest(d *Distribution) error {
	if d == nil || d.Ingest == "" {
		return nil
	}
	return fmt.Errorf("%w: it cannot be cut into fragments", ErrNeedsIngest)
}
