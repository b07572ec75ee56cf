package exec

// FilteredSource is a source followed by a planned filter stage.
type FilteredSource struct {
	Src Source
	St  streamStage
}

// Schema implements Source.
func (f *FilteredSource) Schema() Schema { return f.Src.Schema() }

// Run implements Source.
func (f *FilteredSource) Run(x *Ctx, workers int, emit func(int, *Batch) error) error {
	return f.Src.Run(x, workers, func(w int, b *Batch) error {
		nb, err := f.St.Apply(x, b)
		if err != nil || nb == nil {
			return err
		}
		return emit(w, nb)
	})
}
