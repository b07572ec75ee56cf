package exec

// subSource is the source that runs sub once per run, on first use.
func subSource(sub *Pipeline) *TableSource {
	return &TableSource{Sch: sub.Out(), sub: sub, Eval: func(x *Ctx) (*Batch, error) { return sub.Execute(x) }}
}
