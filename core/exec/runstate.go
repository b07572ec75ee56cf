package exec

import "sync"

// runState holds what an operator computes once per run and then shares
// between the scan workers: a join's hashed right side, a let table's
// rows. It is state of the run, so it lives in the execCtx and the plan
// nodes stay immutable (a plan could run twice, or on another node).
type runState struct {
	mu    sync.Mutex
	cells map[any]*runCell
}

type runCell struct {
	once sync.Once
	v    any
	err  error
}

// do returns the value computed for key in this run, computing it with f
// on first use; concurrent callers wait for the first.
func (r *runState) do(key any, f func() (any, error)) (any, error) {
	r.mu.Lock()
	if r.cells == nil {
		r.cells = map[any]*runCell{}
	}
	c := r.cells[key]
	if c == nil {
		c = &runCell{}
		r.cells[key] = c
	}
	r.mu.Unlock()
	c.once.Do(func() { c.v, c.err = f() })
	return c.v, c.err
}
