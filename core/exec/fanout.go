package exec

// fanOutStage is a streamStage whose output can be far larger than its
// input (mv-expand). ApplyEach hands the output on in bounded batches,
// each to emit before the next is built, so the stages after it and the
// sink see pieces of a size the query can afford instead of one batch
// of every expanded row. Apply stays for callers that need one batch.
type fanOutStage interface {
	streamStage
	ApplyEach(x *Ctx, b *Batch, emit func(*Batch) error) error
}

// feed runs the streaming stages over b and hands what comes out to
// consume. A fan-out stage's pieces each go through the rest of stages
// before the next piece is built. An error from consume (errStopScan from
// a full sink among them) ends the run and is returned as is.
//
// The columns each stage adds are charged to the query's budget until
// feed returns, when the batch has been consumed (memcharge.go): a range()
// over a batch that mv-expand then expands piece by piece is held for
// the whole expansion.
func feed(x *Ctx, stages []Stage, b *Batch, consume func(*Batch) error) error {
	var held int64
	defer func() {
		if held != 0 {
			x.Budget.Charge(-held)
		}
	}()
	for i, st := range stages {
		if f, ok := st.(fanOutStage); ok {
			rest := stages[i+1:]
			return f.ApplyEach(x, b, func(nb *Batch) error {
				return feed(x, rest, nb, consume)
			})
		}
		nb, err := st.(streamStage).Apply(x, b)
		if err != nil {
			return err
		}
		if nb == nil {
			return nil
		}
		if n := addedBytes(b, nb); n > 0 {
			held += n
			if err := x.Budget.Charge(n); err != nil {
				return err
			}
		}
		b = nb
	}
	return consume(b)
}

// runPiecewise feeds b through the streaming stages, which include a
// fan-out stage, into one sink of blk and finishes it.
func runPiecewise(x *Ctx, stages []Stage, blk blockStage, b *Batch) (*Batch, error) {
	s, err := blk.NewSink(x)
	if err != nil {
		return nil, err
	}
	err = feed(x, stages, b, func(nb *Batch) error {
		if err := s.consume(x, nb); err != nil {
			return err
		}
		if s.Full() {
			return errStopScan
		}
		return nil
	})
	if err != nil && err != errStopScan {
		return nil, err
	}
	return blk.Finish(x, []sink{s})
}
