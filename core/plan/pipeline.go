package plan

import (
	"encoding/json"
	"fmt"
)

// SourceKind names a source node's kind (FORMAT.md, "Pipelines").
type SourceKind string

// The source kinds of version 1.
const (
	// SrcScan reads the blocks of one or more datasets.
	SrcScan SourceKind = "scan"
	// SrcTable is a table known when planning (datatable, print): its
	// rows are constants.
	SrcTable SourceKind = "table"
	// SrcSub is a nested pipeline evaluated once per run (a
	// parenthesized source, a let-bound tabular expression).
	SrcSub SourceKind = "sub"
	// SrcUnion appends its legs' rows.
	SrcUnion SourceKind = "union"
	// SrcStream reads a table the request streams (Request.TableStreams).
	SrcStream SourceKind = "stream"
)

var sourceKinds = map[SourceKind]bool{SrcScan: true, SrcTable: true, SrcSub: true, SrcUnion: true, SrcStream: true}

// Source is the first node of a pipeline. Which fields are set depends
// on Kind.
type Source struct {
	Kind SourceKind `json:"k"`
	// Schema is the source's output schema.
	Schema []Field `json:"schema"`
	// Datasets, Lo, Hi and WithSource are a scan's: the datasets it
	// reads, its _time bounds [Lo, Hi) in ns, and the column naming each
	// row's dataset ("" for none).
	Datasets   []string `json:"datasets,omitempty"`
	Lo         *int64   `json:"lo,omitempty"`
	Hi         *int64   `json:"hi,omitempty"`
	WithSource string   `json:"withSource,omitempty"`
	// Pred is a filter the scan applies in its workers (search's
	// predicate), whose term tests also skip blocks.
	Pred *Expr `json:"pred,omitempty"`
	// Cols are a table's columns, each a list of constants, one per row.
	Cols [][]*Expr `json:"cols,omitempty"`
	// Sub is a sub source's pipeline.
	Sub *Pipeline `json:"sub,omitempty"`
	// Legs are a union's inputs, in order.
	Legs []Leg `json:"legs,omitempty"`
}

// Leg is one input of a union: its pipeline and the name its withsource
// column reports.
type Leg struct {
	Name string   `json:"name,omitempty"`
	Pipe Pipeline `json:"pipe"`
}

// Pipeline is a whole planned tabular expression: its source, then its
// stages in order. A query's body plans to one; a join's right side, a
// union's legs and a let table nest them.
type Pipeline struct {
	V      int     `json:"v,omitempty"`
	Source Source  `json:"source"`
	Stages []Stage `json:"stages"`
}

// Check verifies that this node knows every kind in p, nested
// pipelines included. A top-level pipeline also carries the version.
func (p *Pipeline) Check() error {
	if p.V != Version {
		return unsupported("version %d", p.V)
	}
	return p.check()
}

func (p *Pipeline) check() error {
	if err := p.Source.check(); err != nil {
		return err
	}
	for i := range p.Stages {
		if err := p.Stages[i].check(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Source) check() error {
	if !sourceKinds[s.Kind] {
		return unsupported("source kind %q", s.Kind)
	}
	if err := s.Pred.check(); err != nil {
		return err
	}
	for _, col := range s.Cols {
		if len(col) != len(s.Cols[0]) {
			return fmt.Errorf("plan: table columns of %d and %d rows", len(s.Cols[0]), len(col))
		}
		for _, c := range col {
			if c == nil || c.Kind != KConst {
				return fmt.Errorf("plan: a table cell is not a constant")
			}
			if err := c.check(); err != nil {
				return err
			}
		}
	}
	if s.Sub != nil {
		if err := s.Sub.check(); err != nil {
			return err
		}
	}
	return checkLegs(s.Legs)
}

func checkLegs(legs []Leg) error {
	for i := range legs {
		if err := legs[i].Pipe.check(); err != nil {
			return err
		}
	}
	return nil
}

// Encode writes p as JSON; the same pipeline always gives the same bytes.
func (p *Pipeline) Encode() ([]byte, error) { return json.Marshal(p) }

// DecodePipeline reads a pipeline and checks it.
func DecodePipeline(b []byte) (*Pipeline, error) {
	var p Pipeline
	if err := decode(b, &p, p.Check); err != nil {
		return nil, err
	}
	return &p, nil
}
