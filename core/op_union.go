package core

import (
	"errors"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// UnionSource plans `union` as the first element of a pipeline. first,
// when not nil, is the pipeline that feeds a union operator.
func (p *planner) unionSource(u *parser.UnionOp, first *exec.UnionPart) (exec.Source, error) {
	if first == nil {
		if names, ok := p.plainDatasets(u); ok {
			snaps, err := p.snapshots(u, names)
			if err != nil {
				return nil, err
			}
			scan := p.newScan(snaps)
			if u.WithSource != "" {
				scan.WithSource = u.WithSource
				scan.Sch = append(scan.Sch, exec.ColDef{Name: u.WithSource, Type: vector.String})
			}
			return scan, nil
		}
	}
	us := &exec.UnionSource{WithSource: u.WithSource}
	if first != nil {
		us.Parts = append(us.Parts, *first)
	}
	for _, t := range u.Tables {
		name := ""
		if ref, ok := t.Source.(*parser.TableRef); ok && len(t.Ops) == 0 && ref.Pattern {
			for _, ds := range p.matchDatasets(ref.Name) {
				pl, err := p.planPipeline(&parser.Pipeline{Sp: t.Sp, Source: &parser.TableRef{Sp: ref.Sp, Name: ds}})
				if err != nil {
					return nil, err
				}
				us.Parts = append(us.Parts, exec.UnionPart{Pl: pl, Name: ds})
			}
			continue
		}
		if ref, ok := t.Source.(*parser.TableRef); ok {
			name = ref.Name
		}
		pl, err := p.planPipeline(t)
		if err != nil {
			return nil, err
		}
		us.Parts = append(us.Parts, exec.UnionPart{Pl: pl, Name: name})
	}
	var schemas []exec.Schema
	for _, pt := range us.Parts {
		schemas = append(schemas, pt.Pl.Out())
	}
	us.Sch = exec.UnionSchema(schemas...)
	if u.WithSource != "" && us.Sch.Index(u.WithSource) < 0 {
		us.Sch = append(us.Sch, exec.ColDef{Name: u.WithSource, Type: vector.String})
	}
	return us, nil
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

func (p *planner) planUnionOp(in exec.Schema, u *parser.UnionOp) (exec.Stage, error) {
	// The first part is the stage's own input, known only when the stage
	// finishes: finish hands it over as run state of this table source.
	input := &exec.TableSource{Sch: in, Eval: func(*exec.Ctx) (*exec.Batch, error) {
		return nil, errors.New("union: input not collected before the union ran")
	}}
	src, err := p.unionSource(u, &exec.UnionPart{Pl: &exec.Pipeline{Src: input}})
	if err != nil {
		return nil, err
	}
	return &exec.UnionStage{In: in, Src: src.(*exec.UnionSource)}, nil
}
