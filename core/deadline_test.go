package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// An expression stops at the query's deadline while it evaluates one
// Batch, not only between batches: a 1 MB where clause (100,000 or-ed
// comparisons) ran 46 s over one batch with a 30 s -query-timeout
// (scripts/badinput).
func TestExpressionStopsAtDeadline(t *testing.T) {
	src := "a == -1" + strings.Repeat(" or a == -2", 900) // within parser.MaxDepth
	pe, err := parser.ParseExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	p := &planner{e: NewEngine(nil), req: &exec.Request{}, fc: testFnContext(),
		lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}}
	planned, err := p.compilerFor(exec.Schema{{Name: "a", Type: vector.Int}}).compile(pe)
	if err != nil {
		t.Fatal(err)
	}
	e := runnable(t, planned, exec.Schema{{Name: "a", Type: vector.Int}})
	col := vector.New(vector.Int, 4)
	for i := 0; i < 4; i++ {
		col.AppendInt(int64(i))
	}
	b := &exec.Batch{Batch: vector.Batch{Cols: []*vector.Vector{col}, N: 4}}
	if _, err := e.Run(&exec.Ctx{Ctx: context.Background(), Budget: exec.NewMemBudget(0), Fn: testFnContext()}, b); err != nil {
		t.Fatalf("live context: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Run(&exec.Ctx{Ctx: ctx, Budget: exec.NewMemBudget(0), Fn: testFnContext()}, b)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: want context.Canceled, got %v", err)
	}
}
