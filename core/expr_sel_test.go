package core

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// selTestRows is the batch the selection tests evaluate over; every
// other row is live, too dense for extend to narrow the batch, so the
// expressions themselves must honour the selection.
const selTestRows = 64

// selTestBatch returns a batch with an int column a (1..64, one null), a
// real column f, a datetime column d, a string column s, a dictionary
// encoded one k and a bool column t (all true), with every other row live.
func selTestBatch() (*exec.Batch, exec.Schema) {
	a, f, d := vector.New(vector.Int, selTestRows), vector.New(vector.Float, selTestRows), vector.New(vector.DateTime, selTestRows)
	s, tr := vector.New(vector.String, selTestRows), vector.NewConst(vector.Bool, true, selTestRows).Materialize()
	k := &vector.Vector{Type: vector.String, Len: selTestRows, Dict: []string{"p", "q", "r"}, Codes: make([]uint32, selTestRows)}
	for i := 0; i < selTestRows; i++ {
		if i == 10 {
			a.AppendNull()
		} else {
			a.AppendInt(int64(i + 1))
		}
		f.AppendFloat(float64(i) + 0.5)
		d.AppendInt(int64(i+1) * 1e9)
		s.AppendStr(string(rune('a' + i%26)))
		k.Codes[i] = uint32(i % 3)
	}
	var sel []int32
	for i := 0; i < selTestRows; i += 2 {
		sel = append(sel, int32(i))
	}
	b := exec.NewBatch([]*vector.Vector{a, f, d, s, k, tr}, selTestRows)
	b.Sel = sel
	return b, exec.Schema{{Name: "a", Type: vector.Int}, {Name: "f", Type: vector.Float}, {Name: "d", Type: vector.DateTime}, {Name: "s", Type: vector.String}, {Name: "k", Type: vector.String}, {Name: "t", Type: vector.Bool}}
}

// compileSelTest compiles one APL expression over sch.
func compileSelTest(t testing.TB, sch exec.Schema, src string) *exec.Expr {
	t.Helper()
	pe, err := parser.ParseExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	p := &planner{e: NewEngine(nil), req: &exec.Request{}, fc: testFnContext(),
		lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}}
	e, err := p.compilerFor(sch).compile(pe)
	if err != nil {
		t.Fatal(err)
	}
	return runnable(t, e, sch)
}

// runnable is e as a run has it: the planner keeps nodes, and the
// evaluator is built from the node.
func runnable(t testing.TB, e *typed, sch exec.Schema) *exec.Expr {
	t.Helper()
	built, err := exec.BuildExpr(e.Node, sch)
	if err != nil {
		t.Fatal(err)
	}
	return built
}

// written counts the rows of v that hold something other than the zero
// value a fresh vector has: the rows a kernel wrote.
func written(v *vector.Vector) int {
	n := 0
	for i := 0; i < v.Len; i++ {
		switch {
		case v.Bools != nil && v.Bools[i], v.Ints != nil && v.Ints[i] != 0, v.Floats != nil && v.Floats[i] != 0:
			n++
		}
	}
	return n
}

// An expression over a batch with a selection computes its live rows
// only (every value below is non-zero where computed, so the rows written
// count the rows computed), and they equal the expression over every row.
func TestExprComputesLiveRowsOnly(t *testing.T) {
	for _, src := range []string{
		"a * 3 + 7", "a - 100", "f * 2.0 + a", "a / 1", "100 % (a + 1)", "700 / (a - 5)", "f / 0.5",
		"d + 1h", "d - datetime(1970-01-01)", "(d - datetime(1970-01-01)) * 2",
		"a * 2 + 1 > 0", "f >= 0.0", "0 < a", "a == a", "a != 0",
		`s != "zz"`, `"zz" > s`, "s == s", `k != "zz"`, `"zz" >= k`, "k == s or k != s", "t and t", "t or a > 0", "a > 3 or isnull(a)",
	} {
		t.Run(src, func(t *testing.T) {
			b, sch := selTestBatch()
			e := compileSelTest(t, sch, src)
			x := &exec.Ctx{Ctx: context.Background(), Budget: exec.NewMemBudget(0), Fn: testFnContext()}
			got, err := e.Run(x, b)
			if err != nil {
				t.Fatal(err)
			}
			if w := written(got); w > len(b.Sel) {
				t.Errorf("%d rows computed, want at most the %d live ones", w, len(b.Sel))
			}
			dense, _ := selTestBatch()
			dense.Sel = nil
			want, err := e.Run(x, dense)
			if err != nil {
				t.Fatal(err)
			}
			if written(want) <= len(b.Sel) {
				t.Fatalf("the dense run wrote %d rows: the test's values cannot tell live from dead rows", written(want))
			}
			for _, i := range b.Sel {
				if g, w := got.Value(int(i)), want.Value(int(i)); !reflect.DeepEqual(g, w) {
					t.Errorf("row %d: %v over the selection, %v over every row", i, g, w)
				}
			}
		})
	}
}

// countRowsFunc returns a registry function that copies its argument and
// adds the rows it computed to *rows.
func countRowsFunc(name string, rows *int) *fn.Func {
	return &fn.Func{Name: name, MinArgs: 1, MaxArgs: 1,
		Result: func([]vector.Type) (vector.Type, error) { return vector.Int, nil },
		Eval: func(_ *fn.Context, args []*vector.Vector, n fn.Rows) (*vector.Vector, error) {
			out := make([]int64, n.N)
			valid := vector.NewBitmapSet(n.N)
			for i := range n.Live() {
				*rows++
				x, ok := fn.ToInt(args[0], i)
				if !ok {
					valid.Clear(i)
					continue
				}
				out[i] = x
			}
			return &vector.Vector{Type: vector.Int, Len: n.N, Ints: out, Valid: valid}, nil
		}}
}

// A function over a batch with a selection, sparse or not, runs over its
// live rows only, and its result stands at their places in the batch.
func TestFuncLiveRowsOnly(t *testing.T) {
	for _, sel := range [][]int32{{3, 10, 40}, nil} {
		b, sch := selTestBatch()
		if sel != nil {
			b.Sel = sel
		}
		rows := 0
		p := &planner{e: NewEngine(nil), req: &exec.Request{}, fc: testFnContext(),
			lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}}
		c := p.compilerFor(sch)
		f := countRowsFunc("count_rows", &rows)
		planned, err := c.callFunc(&parser.CallExpr{Name: "count_rows"}, f, []*typed{colExpr(0, sch[0], srcpos.Span{})})
		if err != nil {
			t.Fatal(err)
		}
		// count_rows is no registry function, so no node builds it: its
		// evaluator is the one a node of a registered one gets.
		e := exec.CallExpr(planned.Node, planned.Span, planned.Typ, "count_rows", f, []*exec.Expr{exec.ColExpr(0, sch[0], srcpos.Span{})})
		got, err := e.Run(&exec.Ctx{Ctx: context.Background(), Budget: exec.NewMemBudget(0), Fn: testFnContext()}, b)
		if err != nil {
			t.Fatal(err)
		}
		if rows != len(b.Sel) || got.Len != selTestRows {
			t.Fatalf("the function ran over %d rows and returned %d, want %d live rows in a %d-row result", rows, got.Len, len(b.Sel), selTestRows)
		}
		for _, i := range b.Sel {
			if g, w := got.Value(int(i)), b.Cols[0].Value(int(i)); g != w {
				t.Errorf("row %d: %v, want %v", i, g, w)
			}
		}
	}
}

// fnselCountRows counts the rows fnsel_count_rows computed; the function
// is registered once per test binary (Register panics on a second time).
var (
	fnselCountRows    int
	fnselRegisterOnce sync.Once
)

// A function called through an extend after a where sees only the rows
// the where kept, whether the where keeps few rows (the extend narrows
// the batch) or half of them (it does not, and the function gets the
// selection), and the query's answer is that of every row.
func TestFuncAfterWhereSeesLiveRows(t *testing.T) {
	fnselRegisterOnce.Do(func() { fn.Register(countRowsFunc("fnsel_count_rows", &fnselCountRows)) })
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 3, true)))
	for _, where := range []string{"status >= 500", "req_duration_ms > 1.0", "isnotnull(status)"} {
		t.Run(where, func(t *testing.T) {
			kept := mustQuery(t, e, "['logs'] | where "+where+" | count")
			want := mustQuery(t, e, "['logs'] | where "+where+" | summarize sum(status)")
			fnselCountRows = 0
			got := mustQuery(t, e, "['logs'] | where "+where+" | extend y = fnsel_count_rows(status) | summarize sum(y)", func(r *exec.Request) { r.Workers = 1 })
			live := rows(kept)[0][0]
			if fmt.Sprint(fnselCountRows) != fmt.Sprint(live) {
				t.Errorf("the function computed %d rows, the where kept %v", fnselCountRows, live)
			}
			if g, w := fmt.Sprint(rows(got)), fmt.Sprint(rows(want)); g != w {
				t.Errorf("sum over the function's rows %s, want %s", g, w)
			}
		})
	}
}

// An extend after a where that keeps too many rows for extend to narrow
// the batch computes its columns over the where's live rows only.
func TestExtendAfterWhereComputesLiveRows(t *testing.T) {
	pq, err := parser.Parse("T | where a % 2 == 1 | extend y = a * 3 + 7, z = y - f, w = d + 1h")
	if err != nil {
		t.Fatal(err)
	}
	b, sch := selTestBatch()
	b.Sel = nil
	x := &exec.Ctx{Ctx: context.Background(), Budget: exec.NewMemBudget(0), Fn: testFnContext()}
	p := &planner{e: NewEngine(nil), req: &exec.Request{}, fc: x.Fn, lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}}
	where, err := p.planWhere(sch, pq.Body.Ops[0].(*parser.WhereOp))
	if err != nil {
		t.Fatal(err)
	}
	ext, err := p.planExtend(sch, pq.Body.Ops[1].(*parser.ExtendOp))
	if err != nil {
		t.Fatal(err)
	}
	whereSt, err := exec.BuildStage(&where.nodes[0], sch, agg.Context{})
	if err != nil {
		t.Fatal(err)
	}
	extSt, err := exec.BuildStage(&ext.nodes[0], sch, agg.Context{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = exec.RunStages(x, []exec.Stage{whereSt}, b); err != nil {
		t.Fatal(err)
	}
	if exec.Sparse(b) || len(b.Sel) == 0 {
		t.Fatalf("the where kept %d of %d rows: the test needs a selection extend does not narrow", len(b.Sel), b.N)
	}
	if b, err = exec.RunStages(x, []exec.Stage{extSt}, b); err != nil {
		t.Fatal(err)
	}
	for _, c := range b.Cols[len(sch):] {
		if w := written(c); w != len(b.Sel) {
			t.Errorf("%d rows of an extended column computed, want the %d live ones", w, len(b.Sel))
		}
	}
}
