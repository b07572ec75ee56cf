package plan

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// Kind names an expression node's kind (FORMAT.md, "Expressions").
type Kind string

// The expression kinds of version 1.
const (
	KCol    Kind = "col"
	KConst  Kind = "const"
	KCast   Kind = "cast"
	KCmp    Kind = "cmp"
	KLogic  Kind = "logic"
	KNot    Kind = "not"
	KArith  Kind = "arith"
	KStr    Kind = "str"
	KIn     Kind = "in"
	KCall   Kind = "call"
	KIndex  Kind = "index"
	KSlice  Kind = "slice"
	KCursor Kind = "cursor"
)

var exprKinds = map[Kind]bool{KCol: true, KConst: true, KCast: true, KCmp: true, KLogic: true, KNot: true,
	KArith: true, KStr: true, KIn: true, KCall: true, KIndex: true, KSlice: true, KCursor: true}

// Pos is a source position, [line, col], kept for error messages.
type Pos [2]int

// Expr is one resolved, typed expression node. Nodes are immutable once
// built: builders read them and never write.
type Expr struct {
	Kind  Kind        `json:"k"`
	Type  vector.Type `json:"t"`
	Op    string      `json:"op,omitempty"`
	Name  string      `json:"name,omitempty"`
	Index int         `json:"i,omitempty"`
	Value *Value      `json:"v,omitempty"`
	Args  []*Expr     `json:"args,omitempty"`
	Pos   *Pos        `json:"pos,omitempty"`
}

// Col is a reference to input column i.
func Col(i int, name string, t vector.Type, pos *Pos) *Expr {
	return &Expr{Kind: KCol, Type: t, Name: name, Index: i, Pos: pos}
}

// Const is a constant of type t holding v, boxed as vector.Vector.Value
// returns it (nil for null).
func Const(t vector.Type, v any, pos *Pos) *Expr {
	e := &Expr{Kind: KConst, Type: t, Pos: pos}
	switch {
	case v == nil:
	case t == vector.Dynamic:
		e.Value = &Value{V: Dyn{V: v}}
	default:
		e.Value = &Value{V: v}
	}
	return e
}

// Node is an operator or call node over args.
func Node(k Kind, t vector.Type, op string, pos *Pos, args ...*Expr) *Expr {
	return &Expr{Kind: k, Type: t, Op: op, Args: args, Pos: pos}
}

// ConstValue returns a constant's boxed value (nil for null).
func (e *Expr) ConstValue() any {
	if e.Value == nil {
		return nil
	}
	if d, ok := e.Value.V.(Dyn); ok {
		return d.V
	}
	return e.Value.V
}

// check verifies e's kind and its children's, recursively, and reads
// the constants' values by their nodes' types.
func (e *Expr) check() error {
	if e == nil {
		return nil
	}
	if !exprKinds[e.Kind] {
		return unsupported("expression kind %q", e.Kind)
	}
	if e.Type > vector.Dynamic {
		return unsupported("type %d", e.Type)
	}
	if e.Value != nil && e.Value.raw != nil {
		v, err := decodeScalar(uint8(e.Type), e.Value.raw)
		if err != nil {
			return fmt.Errorf("plan: constant of type %s: %w", e.Type, err)
		}
		e.Value = &Value{V: v}
	}
	for _, a := range e.Args {
		if err := a.check(); err != nil {
			return err
		}
	}
	return nil
}
