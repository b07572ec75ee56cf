package core

import (
	"fmt"
	"strings"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// aggCall is one planned aggregation of a summarize.
type aggCall struct {
	spec   *agg.Spec
	args   []*expr
	types  []vector.Type
	consts []any
	outs   []vector.Type
	names  []string
	ctx    *agg.Context
	call   *parser.CallExpr
	// conds holds, per bool argument, the kernel that evaluates it as a
	// filter (op_summarize_cond.go); nil entries have none.
	conds []*condFilter
}

// summarizeStage is hash aggregation: each scan worker groups its rows
// into its own table and aggregation states; finish merges them.
type summarizeStage struct {
	in       schema
	sch      schema
	keys     []*expr
	aggs     []*aggCall
	timeKey  int   // index of the bin(_time, ...) key, or -1
	binSize  int64 // its bin width in ns
	keyNames []string
	// binCol is the input column of a bin(_time, w) key, or -1: the key is
	// then computed as a bucket index straight from the column, which
	// groups through a dense array instead of a hash table.
	binCol int
}

func (p *planner) planSummarize(in schema, op *parser.SummarizeOp) (stage, error) {
	st := &summarizeStage{in: in, timeKey: -1, binCol: -1}
	c := p.compilerFor(in)
	for i, ne := range op.By {
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = byName(ne.Expr, e, st.sch)
		}
		if bin, ok := timeBin(ne.Expr, e, c); ok && st.timeKey < 0 {
			st.timeKey, st.binSize = i, bin
			if id, ok := ne.Expr.(*parser.CallExpr).Args[0].(*parser.Ident); ok && bin > 0 {
				st.binCol = in.index(id.Name)
			}
		}
		st.keys = append(st.keys, e)
		st.sch = append(st.sch, colDef{name, e.typ})
		st.keyNames = append(st.keyNames, name)
	}
	actx := &agg.Context{Start: p.req.Start, End: p.req.End, BinSize: st.binSize}
	for _, ne := range op.Aggs {
		ac, err := p.planAgg(c, in, ne, actx, st.keyNames)
		if err != nil {
			return nil, err
		}
		for i, t := range ac.outs {
			name := ac.names[i]
			if j := st.sch.index(name); j >= 0 {
				name = uniqueName(st.sch, name)
				ac.names[i] = name
			}
			st.sch = append(st.sch, colDef{name, t})
		}
		st.aggs = append(st.aggs, ac)
	}
	return st, nil
}

// uniqueName appends a numeric suffix until name is unused.
func uniqueName(s schema, name string) string {
	for i := 1; ; i++ {
		n := fmt.Sprintf("%s%d", name, i)
		if s.index(n) < 0 {
			return n
		}
	}
}

// byName is the default name of a by-expression: the column itself, or
// the column a bin()/floor()-style call groups, else Column1, Column2, ...
func byName(ast parser.Expr, e *expr, s schema) string {
	if e.col >= 0 && e.name != "" {
		return e.name
	}
	if call, ok := ast.(*parser.CallExpr); ok && len(call.Args) > 0 {
		if n, ok := dottedName(call.Args[0]); ok {
			return n
		}
	}
	if n, ok := dottedName(ast); ok {
		return n
	}
	return nextColumnName(s)
}

// timeBin recognises bin(_time, constant) and returns the bin size.
func timeBin(ast parser.Expr, e *expr, c *compiler) (int64, bool) {
	call, ok := ast.(*parser.CallExpr)
	if !ok || (call.Name != "bin" && call.Name != "bin_auto" && call.Name != "floor") || e.typ != vector.DateTime {
		return 0, false
	}
	if n, ok := dottedName(call.Args[0]); !ok || n != "_time" {
		return 0, false
	}
	if call.Name == "bin_auto" {
		return autoBin(c.x), true
	}
	if len(call.Args) < 2 {
		return 0, false
	}
	w, err := c.compile(call.Args[1])
	if err != nil || !w.isConst() || w.cnst.IsNull(0) || w.typ != vector.TimeSpan {
		return 0, false
	}
	return w.cnst.Int(0), true
}

// autoBin is bin_auto's width: about 100 bins over the query range.
func autoBin(x *execCtx) int64 {
	if x.fn.Start.IsZero() || x.fn.End.IsZero() {
		return int64(60e9)
	}
	span := x.fn.End.Sub(x.fn.Start).Nanoseconds()
	for _, w := range []int64{1e9, 5e9, 10e9, 30e9, 60e9, 300e9, 600e9, 1800e9, 3600e9, 3 * 3600e9, 6 * 3600e9, 12 * 3600e9, 86400e9, 7 * 86400e9} {
		if span/w <= 100 {
			return w
		}
	}
	return 30 * 86400e9
}

// planAgg plans one `[name =] agg(args)` entry.
func (p *planner) planAgg(c *compiler, in schema, ne *parser.NamedExpr, actx *agg.Context, keyNames []string) (*aggCall, error) {
	call, ok := ne.Expr.(*parser.CallExpr)
	if !ok {
		return nil, semErr(ne.Expr, "summarize expects an aggregation function call such as count() or avg(x)")
	}
	spec := agg.Lookup(call.Name)
	if spec == nil {
		return nil, semErr(call, "unknown aggregation function %q", call.Name)
	}
	args := expandStarArgs(call, in, keyNames)
	if len(args) < spec.MinArgs || (spec.MaxArgs >= 0 && len(args) > spec.MaxArgs) {
		return nil, semErr(call, "%s expects %s, got %d", call.Name, arity(spec.MinArgs, spec.MaxArgs), len(args))
	}
	ac := &aggCall{spec: spec, ctx: actx, call: call}
	var argNames []string
	for _, a := range args {
		if na, ok := a.(*parser.NamedArg); ok {
			argNames = append(argNames, na.Name)
			a = na.Value
		} else {
			argNames = append(argNames, "")
		}
		e, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		ac.args = append(ac.args, e)
		ac.types = append(ac.types, e.typ)
		var cf *condFilter
		if e.typ == vector.Bool && !e.isConst() {
			cf = condFilterOf(in, e.node)
		}
		ac.conds = append(ac.conds, cf)
		ac.consts = append(ac.consts, e.constValue())
	}
	for _, i := range spec.ConstArgs {
		if i < len(ac.args) && !ac.args[i].isConst() {
			return nil, semErr(args[i], "argument %d of %s must be a constant", i+1, call.Name)
		}
	}
	outs, err := spec.Result(ac.types)
	if err != nil {
		return nil, callErr(call, call.Name, err)
	}
	ac.outs = outs
	ac.names = aggNames(ne.Name, call, ac, argNames)
	return ac, nil
}

// aggNames gives the output column names: the alias, else Axiom's
// defaults (count_, avg_x, make_set_x, percentile_x_95 ...); arg_max and
// arg_min name their extra columns after the arguments.
func aggNames(alias string, call *parser.CallExpr, ac *aggCall, argNames []string) []string {
	names := make([]string, len(ac.outs))
	col := func(i int) string {
		if i < len(argNames) && argNames[i] != "" {
			return argNames[i]
		}
		if i < len(ac.args) && ac.args[i].col >= 0 {
			return ac.args[i].name
		}
		if i < len(call.Args) {
			if n, ok := dottedName(call.Args[i]); ok {
				return n
			}
		}
		return ""
	}
	base := call.Name + "_"
	if n := col(0); n != "" && call.Name != "count" {
		base = call.Name + "_" + n
	}
	if call.Name == "arg_max" || call.Name == "arg_min" {
		// KQL names the first column after the expression's column, or
		// max_/min_ plus the first column it reads.
		if n := col(0); n != "" {
			base = n
		} else if id := firstIdent(call.Args[0]); id != "" {
			base = strings.TrimPrefix(call.Name, "arg_") + "_" + id
		}
	}
	if alias != "" {
		base = alias
	}
	names[0] = base
	for i := 1; i < len(names); i++ {
		n := col(i)
		if n == "" {
			n = fmt.Sprintf("%s_arg%d", call.Name, i)
		}
		names[i] = n
	}
	return names
}

func (s *summarizeStage) out() schema { return s.sch }

// aggSink is one worker's partial aggregation.
type aggSink struct {
	st     *summarizeStage
	groups *groupTable
	states []agg.State
	gbuf   []uint32
	x      *execCtx
	last   int
	// conds are the fused conditional runs, per aggregation (nil: none).
	conds []*condRun
	// dense counts count()-only summaries by a long key (group_count.go).
	dense *denseCounter
	// fuse counts count() and countif summaries by a dictionary key
	// (op_summarize_countfuse.go); nil when the aggregations do not suit.
	fuse *fusedCount
}

func (s *summarizeStage) newSink(x *execCtx) (sink, error) {
	types := make([]vector.Type, len(s.keys))
	for i, k := range s.keys {
		types[i] = k.typ
		if i == s.timeKey && s.binCol >= 0 {
			types[i] = vector.Int
		}
	}
	sk := &aggSink{st: s, groups: newGroupTable(types), x: x}
	if len(types) == 1 && types[0] == vector.String {
		sk.groups.intern = x.intern
	}
	for _, a := range s.aggs {
		state, err := a.spec.New(a.ctx, a.types, a.consts)
		if err != nil {
			return nil, callErr(a.call, a.call.Name, err)
		}
		sk.states = append(sk.states, state)
		sk.conds = append(sk.conds, newCondRun(a, state))
	}
	sk.fuse = newFusedCount(s, sk.states, sk.conds)
	return sk, nil
}

func (sk *aggSink) full() bool { return false }

func (sk *aggSink) keepsNothing() {}

func (sk *aggSink) consume(x *execCtx, b *batch) error {
	rows := b.Rows()
	if rows == 0 {
		return nil
	}
	keys := make([]*vector.Vector, len(sk.st.keys))
	for i, k := range sk.st.keys {
		if i == sk.st.timeKey && sk.st.binCol >= 0 {
			v, err := binIndexes(b, sk.st.binCol, sk.st.binSize)
			if err != nil {
				return err
			}
			keys[i] = v
			continue
		}
		v, err := k.run(x, b)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	if sk.fuse != nil {
		ok, err := sk.countFused(b, keys[0])
		if err != nil {
			return err
		}
		if ok {
			return sk.chargeGroups(x)
		}
	}
	if len(keys) == 1 && sk.denseCount(b, keys[0]) {
		return sk.chargeGroups(x)
	}
	if cap(sk.gbuf) < rows {
		sk.gbuf = make([]uint32, rows)
	}
	g := sk.gbuf[:rows]
	sk.groups.assign(keys, b.Sel, b.N, g)
	if err := sk.chargeGroups(x); err != nil {
		return err
	}
	for i, a := range sk.st.aggs {
		sk.states[i].Grow(sk.groups.n)
		if cr := sk.conds[i]; cr != nil {
			done, err := cr.update(x, b, a, g, sk.groups.n)
			if err != nil {
				return err
			}
			if done {
				continue
			}
		}
		args := make([]*vector.Vector, len(a.args))
		for j, e := range a.args {
			v, err := e.run(x, b)
			if err != nil {
				return err
			}
			args[j] = v
		}
		sk.states[i].Update(args, b.Sel, g)
	}
	return nil
}

// chargeGroups charges the query's memory budget for new groups.
func (sk *aggSink) chargeGroups(x *execCtx) error {
	if n := sk.groups.n; n > sk.last {
		if err := x.budget.charge(int64(n-sk.last) * int64(64+32*len(sk.states))); err != nil {
			return err
		}
		sk.last = n
	}
	return nil
}

func (s *summarizeStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	for _, sk := range sinks {
		sk.(*aggSink).dense.release()
	}
	base := sinks[0].(*aggSink)
	for _, o := range sinks[1:] {
		other := o.(*aggSink)
		mergeGroupStates(base.groups, base.states, other.groups, other.states)
	}
	n := base.groups.n
	if len(s.keys) == 0 {
		n = 1 // summarize without by always answers one row
	}
	vecs := make([]*vector.Vector, 0, len(s.sch))
	for i, k := range base.groups.keys {
		if i == s.timeKey && s.binCol >= 0 {
			k = binTimes(k, s.binSize)
			base.groups.keys[i] = k
		}
		vecs = append(vecs, k)
	}
	for i := range base.states {
		base.states[i].Grow(n)
		vecs = append(vecs, base.states[i].Result(n)...)
	}
	for i, v := range vecs {
		if v.Type != s.sch[i].Type {
			vecs[i] = castVector(v, s.sch[i].Type)
		}
	}
	x.finals.set(s, base)
	return newBatch(vecs, n), nil
}

// expandStarArgs expands `*` in arg_max(x, *) / arg_min(x, *) into every
// input column except the group keys and the column the first argument
// names, which the output already has.
func expandStarArgs(call *parser.CallExpr, in schema, keyNames []string) []parser.Expr {
	var out []parser.Expr
	skip := map[string]bool{}
	for _, k := range keyNames {
		skip[k] = true
	}
	if len(call.Args) > 0 {
		if n, ok := dottedName(call.Args[0]); ok {
			skip[n] = true
		}
	}
	for _, a := range call.Args {
		if _, star := a.(*parser.StarExpr); star {
			for _, col := range in {
				if !skip[col.Name] {
					out = append(out, &parser.Ident{Sp: a.Span(), Name: col.Name})
				}
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// firstIdent returns the first identifier an expression reads, or "".
func firstIdent(e parser.Expr) string {
	found := ""
	parser.Walk(e, func(n parser.Node) bool {
		if found != "" {
			return false
		}
		if id, ok := n.(*parser.Ident); ok {
			found = id.Name
			return false
		}
		return true
	})
	return found
}

// binIndexes computes floor(t / w) for the datetime column col: the
// bucket of bin(_time, w) as a small dense integer.
func binIndexes(b *batch, col int, w int64) (*vector.Vector, error) {
	tv, err := b.col(col)
	if err != nil {
		return nil, err
	}
	if tv.Const {
		tv = tv.Materialize()
	}
	out := &vector.Vector{Type: vector.Int, Len: b.N, Valid: tv.Valid, Ints: make([]int64, b.N)}
	for i, t := range tv.Ints[:b.N] {
		out.Ints[i] = floorDiv(t, w)
	}
	return out, nil
}

// binTimes turns bucket indexes back into the datetimes bin() returns.
func binTimes(k *vector.Vector, w int64) *vector.Vector {
	out := &vector.Vector{Type: vector.DateTime, Len: k.Len, Valid: k.Valid, Ints: make([]int64, len(k.Ints))}
	for i, q := range k.Ints {
		out.Ints[i] = q * w
	}
	return out
}

// mergeGroupStates folds a worker's groups and their aggregation states
// into the base worker's: groups are matched by key, states merged per
// matched group.
func mergeGroupStates(bg *groupTable, bs []agg.State, og *groupTable, os []agg.State) {
	if og.n == 0 {
		return
	}
	into := bg.mergeInto(og)
	for i := range bs {
		bs[i].Grow(bg.n)
		os[i].Grow(og.n)
		bs[i].Merge(os[i], into)
	}
}
