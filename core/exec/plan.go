package exec

// SubSource is the source that runs sub once per run, on first use.
func SubSource(sub *Pipeline) *TableSource {
	return &TableSource{Sch: sub.Out(), sub: sub, Eval: func(x *Ctx) (*Batch, error) { return sub.Execute(x) }}
}
