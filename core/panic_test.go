package core

import (
	"context"
	"errors"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/vector"
)

// A panic in a scan worker fails its query with an InternalError and
// leaves the engine answering the next query; before, it ended the
// process.
func TestWorkerPanicFailsOnlyItsQuery(t *testing.T) {
	fn.Register(&fn.Func{Name: "panic_in_worker_test", MinArgs: 1, MaxArgs: 1, Volatile: true,
		Result: func([]vector.Type) (vector.Type, error) { return vector.Int, nil },
		Eval: func(*fn.Context, []*vector.Vector, fn.Rows) (*vector.Vector, error) {
			panic("boom")
		}})
	e := opsStoreEngine(t, 3000)
	for _, workers := range []int{1, 3} {
		_, err := e.Query(context.Background(), &exec.Request{APL: "events | extend y = panic_in_worker_test(k) | summarize sum(y)", Workers: workers})
		var ie *exec.InternalError
		if !errors.As(err, &ie) || ie.Value != "boom" || len(ie.Stack) == 0 {
			t.Fatalf("%d workers: got %v, want an InternalError holding the panic and its stack", workers, err)
		}
		if _, err := e.Query(context.Background(), &exec.Request{APL: "events | count", Workers: workers}); err != nil {
			t.Fatalf("the next query failed: %v", err)
		}
	}
}
