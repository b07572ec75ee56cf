package exec

// StageChain is several stages planned from one operator; planPipeline
// splices them in order.
type StageChain []Stage

// Out implements Stage.
func (c StageChain) Out() Schema { return c[len(c)-1].Out() }
