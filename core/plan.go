package core

import (
	"errors"
	"fmt"
	"path"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planner turns a parsed query into an executable pipeline.
type planner struct {
	e   *Engine
	req *exec.Request
	// fc is the query's function context (clock, range, seed, memory
	// charge) that constants fold with; the planner holds nothing of a
	// run.
	fc     *fn.Context
	lets   map[string]*typed
	tables map[string]*parser.Pipeline
	// datasets records every dataset the query reads, in order of first use.
	datasets []string
	// strict is `set stricttypes`: no implicit coercion in comparisons.
	strict bool
	// snaps are the snapshots the query reads; released when it ends.
	snaps []*store.Snapshot
	// streams are the request's TableStreams, by name.
	streams exec.StreamTables
	// plan is the query's plan once planned (the result cache's key).
	plan *plan.Pipeline
	// noCache says why the answer must never be served from the result
	// cache ("" when it may be): it reads the clock or draws random
	// numbers, so two runs over the same data differ.
	noCache string
	// cut is the row limit the planner added to the result (none when
	// n is 0): the run asks for one row more, to know whether it cut.
	cut rowCut
}

// release unpins every snapshot the query took.
func (p *planner) release() {
	for _, s := range p.snaps {
		s.Release()
	}
	p.snaps = nil
}

// compilerFor returns an expression compiler over schema s.
func (p *planner) compilerFor(s exec.Schema) *compiler {
	return &compiler{fc: p.fc, in: s, lets: p.lets, strict: p.strict, noCache: &p.noCache}
}

// planQuery plans the statements and the body of q.
func (p *planner) planQuery(q *parser.Query) (*pipe, error) {
	for _, st := range q.Stmts {
		switch st := st.(type) {
		case *parser.SetStmt:
			if st.Name == "stricttypes" {
				p.strict = true
			}
		case *parser.LetStmt:
			if st.Tabular != nil {
				p.tables[st.Name] = st.Tabular
				delete(p.lets, st.Name)
				continue
			}
			e, err := p.compilerFor(nil).compile(st.Expr)
			if err != nil {
				return nil, err
			}
			if !e.IsConst() {
				return nil, semErr(st, "let %s must be a constant expression", st.Name)
			}
			e.Name = ""
			p.lets[st.Name] = e
			delete(p.tables, st.Name)
		}
	}
	if q.Body == nil {
		return nil, &exec.QueryError{Line: 1, Col: 1, Msg: "the query has no tabular expression", Kind: "semantic"}
	}
	return p.planPipeline(q.Body)
}

// planPipeline plans a source and its operators.
func (p *planner) planPipeline(pl *parser.Pipeline) (*pipe, error) {
	src, err := p.planSource(pl.Source)
	if err != nil {
		return nil, err
	}
	out := sourcePipe(*src)
	if out.scans() {
		if st, err := p.virtualFields(src.Datasets, out.out); err != nil {
			return nil, err
		} else if st != nil {
			out.add(st)
		}
	}
	for _, op := range pl.Ops {
		st, err := p.planOp(out.out, op)
		if err != nil {
			return nil, err
		}
		if len(st.nodes) == 1 && (pushDown(out, &st.nodes[0]) || sortThenTake(out, &st.nodes[0])) {
			continue
		}
		out.add(st)
	}
	return out, nil
}

// planSource plans the first element of a pipeline.
func (p *planner) planSource(s parser.Source) (*plan.Source, error) {
	switch s := s.(type) {
	case *parser.TableRef:
		return p.tableRef(s)
	case *parser.DatatableSource:
		return p.datatable(s)
	case *parser.PrintSource:
		return p.print(s)
	case *parser.ParenSource:
		return p.subquery(s.Pipe)
	case *parser.UnionOp:
		return p.unionSource(s)
	case *parser.SearchOp:
		return p.searchSource(s)
	case *parser.ExternalDataSource:
		return p.externalData(s)
	}
	return nil, fmt.Errorf("unsupported source %T", s)
}

// subquery plans a nested pipeline, evaluated on first use.
func (p *planner) subquery(pl *parser.Pipeline) (*plan.Source, error) {
	sub, err := p.planPipeline(pl)
	if err != nil {
		return nil, err
	}
	sub = p.finalize(sub, false)
	return &plan.Source{Kind: plan.SrcSub, Schema: fields(sub.out), Sub: &sub.Pipeline}, nil
}

// tableRef resolves a name: a tabular let first, then a dataset.
func (p *planner) tableRef(t *parser.TableRef) (*plan.Source, error) {
	if pl, ok := p.tables[t.Name]; ok && !t.Pattern {
		return p.subquery(pl)
	}
	if st, ok := p.streams[t.Name]; ok && !t.Pattern {
		return p.streamSource(st)
	}
	names := []string{t.Name}
	if t.Pattern {
		names = p.matchDatasets(t.Name)
		if len(names) == 0 {
			return nil, semErr(t, "no dataset matches %q", t.Name)
		}
	}
	snaps, err := p.snapshots(t, names)
	if err != nil {
		return nil, err
	}
	return p.newScan(snaps), nil
}

// snapshots checks permissions and takes a snapshot of each dataset.
func (p *planner) snapshots(n parser.Node, names []string) ([]*store.Snapshot, error) {
	var out []*store.Snapshot
	for _, name := range names {
		if p.req.Allowed != nil && !p.req.Allowed(name) {
			return nil, &exec.ForbiddenError{Dataset: name}
		}
		if p.cat() == nil {
			return nil, semErr(n, "unknown dataset or table %q%s", name, p.suggestDataset(name))
		}
		snap, err := p.cat().Snapshot(name)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, &exec.QueryError{Line: n.Span().Start.Line, Col: n.Span().Start.Col,
					Msg: fmt.Sprintf("unknown dataset or table %q%s", name, p.suggestDataset(name)), Kind: "semantic", Err: err}
			}
			return nil, err
		}
		p.noteDataset(name)
		p.snaps = append(p.snaps, snap)
		out = append(out, snap)
	}
	return out, nil
}

// suggestDataset offers a close name among the datasets the request may
// read (never one it may not: that would tell a name it cannot see), the
// files it reads in place and the query's let tables.
func (p *planner) suggestDataset(name string) string {
	known := p.matchDatasets("*")
	for t := range p.tables {
		known = append(known, t)
	}
	for t := range p.streams {
		known = append(known, t)
	}
	return didYouMean(name, known)
}

// cat is the catalog the query reads: the request's, else the engine's.
func (p *planner) cat() exec.Catalog {
	if p.req.Catalog != nil {
		return p.req.Catalog
	}
	return p.e.cat
}

func (p *planner) noteDataset(name string) {
	for _, d := range p.datasets {
		if d == name {
			return
		}
	}
	p.datasets = append(p.datasets, name)
}

// matchDatasets lists the datasets a wildcard pattern names, skipping the
// ones the caller may not read (a wildcard never reaches them).
func (p *planner) matchDatasets(pattern string) []string {
	if p.cat() == nil {
		return nil
	}
	var out []string
	for _, n := range p.cat().Names() {
		if ok, _ := path.Match(pattern, n); ok {
			if p.req.Allowed == nil || p.req.Allowed(n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// newScan plans a scan of snaps with the request's time range.
func (p *planner) newScan(snaps []*store.Snapshot) *plan.Source {
	s := &plan.Source{Kind: plan.SrcScan, Schema: exec.ScanSchema(snaps)}
	for _, snap := range snaps {
		s.Datasets = append(s.Datasets, snap.Dataset)
	}
	p.bound(s)
	return s
}

// bound applies the request's time range and cursor to a scan. A time
// past either end of the datetime range is clamped to it: endTime in the
// year 3000 asks for everything up to the last time an event can have.
func (p *planner) bound(s *plan.Source) {
	if !p.req.Start.IsZero() {
		lo := fn.ClampNanos(p.req.Start)
		s.Lo = &lo
	}
	if !p.req.End.IsZero() {
		hi := fn.ClampNanos(p.req.End)
		s.Hi = &hi
	}
	applyCursor(s, p.req)
}

// datatable builds the literal table of `datatable(...) [...]`.
func (p *planner) datatable(d *parser.DatatableSource) (*plan.Source, error) {
	nc := len(d.Cols)
	if nc == 0 {
		return nil, semErr(d, "datatable needs at least one column")
	}
	if len(d.Values)%nc != 0 {
		return nil, semErr(d, "datatable has %d values, not a multiple of its %d columns", len(d.Values), nc)
	}
	rows := len(d.Values) / nc
	sch := make(exec.Schema, nc)
	vecs := make([]*vector.Vector, nc)
	for i, c := range d.Cols {
		sch[i] = exec.ColDef{Name: c.Name, Type: c.Type}
		vecs[i] = vector.New(c.Type, rows)
	}
	cc := p.compilerFor(nil)
	for i, ve := range d.Values {
		e, err := cc.compile(ve)
		if err != nil {
			return nil, err
		}
		if !e.IsConst() {
			return nil, semErr(ve, "datatable values must be constants")
		}
		col := i % nc
		v := e.ConstValue()
		if sch[col].Type == vector.Dynamic {
			vecs[col].AppendValue(v)
			continue
		}
		cv := exec.ConvertValue(v, sch[col].Type)
		if cv == nil && v != nil {
			return nil, semErr(ve, "value %s does not fit column %s of type %s", exec.ValueString(v), sch[col].Name, sch[col].Type)
		}
		vecs[col].AppendValue(cv)
	}
	ts := tableSource(sch, vecs, rows)
	return &ts, nil
}

// print evaluates `print a = expr, ...` into one row.
func (p *planner) print(ps *parser.PrintSource) (*plan.Source, error) {
	cc := p.compilerFor(nil)
	var sch exec.Schema
	var vecs []*vector.Vector
	for i, ne := range ps.Cols {
		e, err := cc.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		v, err := constValue(p.fc, e)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = fmt.Sprintf("print_%d", i)
		}
		sch = append(sch, exec.ColDef{Name: name, Type: e.Typ})
		vecs = append(vecs, v.Materialize())
	}
	ts := tableSource(sch, vecs, 1)
	return &ts, nil
}
