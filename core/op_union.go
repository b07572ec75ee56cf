package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// unionSource plans `union` as the first element of a pipeline.
func (p *planner) unionSource(u *parser.UnionOp) (*plan.Source, error) {
	if names, ok := p.plainDatasets(u); ok {
		snaps, err := p.snapshots(u, names)
		if err != nil {
			return nil, err
		}
		scan := p.newScan(snaps)
		if u.WithSource != "" {
			scan.WithSource = u.WithSource
			scan.Schema = append(scan.Schema, exec.ColDef{Name: u.WithSource, Type: vector.String})
		}
		return scan, nil
	}
	legs, sch, err := p.unionLegs(u, nil)
	if err != nil {
		return nil, err
	}
	return &plan.Source{Kind: plan.SrcUnion, Schema: fields(sch), Legs: legs, WithSource: u.WithSource}, nil
}

// unionLegs plans the tables of a union, and the union's schema over
// them and first, the input of a union operator (nil for a source).
func (p *planner) unionLegs(u *parser.UnionOp, first exec.Schema) ([]plan.Leg, exec.Schema, error) {
	var legs []plan.Leg
	var schemas []exec.Schema
	if first != nil {
		schemas = append(schemas, first)
	}
	add := func(pl *pipe, name string) {
		legs = append(legs, plan.Leg{Name: name, Pipe: pl.Pipeline})
		schemas = append(schemas, pl.out)
	}
	for _, t := range u.Tables {
		name := ""
		if ref, ok := t.Source.(*parser.TableRef); ok && len(t.Ops) == 0 && ref.Pattern {
			for _, ds := range p.matchDatasets(ref.Name) {
				pl, err := p.planPipeline(&parser.Pipeline{Sp: t.Sp, Source: &parser.TableRef{Sp: ref.Sp, Name: ds}})
				if err != nil {
					return nil, nil, err
				}
				add(pl, ds)
			}
			continue
		}
		if ref, ok := t.Source.(*parser.TableRef); ok {
			name = ref.Name
		}
		pl, err := p.planPipeline(t)
		if err != nil {
			return nil, nil, err
		}
		add(pl, name)
	}
	sch := exec.UnionSchema(schemas...)
	if u.WithSource != "" && sch.Index(u.WithSource) < 0 {
		sch = append(sch, exec.ColDef{Name: u.WithSource, Type: vector.String})
	}
	return legs, sch, nil
}

// plainDatasets reports the dataset names of a union made only of dataset
// references (wildcards expanded).
func (p *planner) plainDatasets(u *parser.UnionOp) ([]string, bool) {
	var names []string
	for _, t := range u.Tables {
		ref, ok := t.Source.(*parser.TableRef)
		if !ok || len(t.Ops) != 0 {
			return nil, false
		}
		if _, isLet := p.tables[ref.Name]; isLet {
			return nil, false
		}
		if ref.Pattern {
			names = append(names, p.matchDatasets(ref.Name)...)
			continue
		}
		if p.cat() == nil {
			return nil, false
		}
		snap, err := p.cat().Snapshot(ref.Name)
		if err != nil {
			return nil, false
		}
		snap.Release()
		names = append(names, ref.Name)
	}
	return names, len(names) > 0
}

// planUnionOp plans a union operator: its input is the union's first
// part, known only when the stage runs; the node holds the other legs.
func (p *planner) planUnionOp(in exec.Schema, u *parser.UnionOp) (*step, error) {
	legs, sch, err := p.unionLegs(u, in)
	if err != nil {
		return nil, err
	}
	return one(plan.Stage{Kind: plan.SUnion, Schema: fields(sch), Legs: legs, WithSource: u.WithSource}, sch), nil
}
