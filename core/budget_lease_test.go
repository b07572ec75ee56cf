package core

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// fakeLease grants up to cap bytes in all, recording what it was asked.
type fakeLease struct {
	mu          sync.Mutex
	cap, lent   int64
	asks        int
	refusedWith error
}

func (l *fakeLease) Grow(n int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asks++
	if l.lent+n > l.cap {
		return l.refusedWith
	}
	l.lent += n
	return nil
}

// A query run under a memory lease asks it for what its budget charges,
// in steps, and fails with the lease's refusal, wrapped as a budget
// error, once the process cannot spare more; range() arrays count, as
// the rows mv-expand builds from them do.
func TestQueryDrawsOnMemoryLease(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	run := func(l *fakeLease, q string) error {
		req := &exec.Request{APL: q, Now: fixtureNow, Workers: runtime.GOMAXPROCS(0), NoColumnCache: true, DisableCache: true}
		_, err := e.Query(exec.WithMemoryLease(context.Background(), l), req)
		return err
	}
	refusal := errors.New("the server is out of query memory")
	small := &fakeLease{cap: 1 << 30, refusedWith: refusal}
	if err := run(small, `logs | summarize count() by status`); err != nil {
		t.Fatal(err)
	}
	big := &fakeLease{cap: 64 << 20, refusedWith: refusal}
	for _, q := range []string{
		`logs | extend r = range(1, 100000 + status * 0) | summarize max(array_length(r))`,
		`logs | extend r = range(1, 100000 + status * 0) | mv-expand r | summarize count() by r`,
	} {
		big.lent = 0
		err := run(big, q)
		if !errors.Is(err, exec.ErrMemoryExceeded) || !errors.Is(err, refusal) {
			t.Errorf("%s: want the lease's refusal as a budget error, got %v", q, err)
		}
		if big.lent > big.cap {
			t.Errorf("%s: lent %d past the lease's %d", q, big.lent, big.cap)
		}
	}
}
