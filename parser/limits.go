package parser

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Limits on one query, checked by Parse and ParseExpr, so every caller
// (the query API, the CLI, the formatter, and the validation of stored
// queries and virtual fields) refuses the same inputs the same way. They
// keep the cost of a refused query small (the text is measured before it
// is scanned, tokens are counted while it is scanned) and bound the
// recursion of every later walk over the tree (planner, compiler,
// evaluator, plan encoding, formatter), whose depth is the tree's depth:
// a left-associative chain `1+1+…+1` is a tree as deep as it is long.
const (
	// MaxQueryBytes is the longest query text accepted: 1 MiB holds an
	// `in` list of 20,000 UUIDs several times over.
	MaxQueryBytes = 1 << 20
	// MaxTokens bounds the names, literals and operators of one query,
	// so scanning a long text of one-byte tokens, and the copy the
	// grammar makes of them, stay a few tens of MB: an `in` list of
	// 49,000 values fits.
	MaxTokens = 100_000
	// MaxNodes bounds the syntax tree: each name, literal, operator,
	// call, column and pipeline stage is a node.
	MaxNodes = 100_000
	// MaxDepth bounds how deeply the syntax tree nests, operators chained
	// one after another included: `a or b or c` is three levels below
	// the `or`s' parent. A 900-term `or` fits.
	MaxDepth = 1_000
	// MaxStages bounds the tabular operators of one query, counted as
	// its "|" (subqueries included): each stage costs the planner and
	// executor far more than a node of an expression does.
	MaxStages = 1_000
)

// errTooLong reports a text over MaxQueryBytes at the first byte past
// the limit, without scanning further than that.
func errTooLong(src string) ErrorList {
	head := src[:MaxQueryBytes]
	line := 1 + strings.Count(head, "\n")
	col := 1 + utf8.RuneCountInString(head[strings.LastIndexByte(head, '\n')+1:])
	return ErrorList{{Pos: Pos{Line: line, Col: col, Offset: MaxQueryBytes},
		Msg: "the query is " + itoa(len(src)) + " bytes long, over the limit of " + itoa(MaxQueryBytes) + " bytes (1 MiB)"}}
}

// checkQuery refuses a query whose tree has more than MaxNodes nodes or
// is deeper than MaxDepth once each use of a tabular let in the query
// body is counted as the copy of the let's pipeline the planner makes of
// it, and a tabular let that uses itself. The planner resolves a name
// inside a let by the let that holds the name when the body is planned
// (the last one), so names are resolved the same way here: otherwise
// `let t = t | take 1; t` would expand forever, and thirty lets that each
// use the one before twice would expand to a billion copies.
func checkQuery(q *Query) *Error {
	c := &treeCheck{}
	for _, st := range q.Stmts {
		if l, ok := st.(*LetStmt); ok && l.Tabular != nil {
			if c.lets == nil {
				c.lets = map[string]*letCost{}
			}
			c.lets[l.Name] = &letCost{let: l}
		} else if ok {
			delete(c.lets, l.Name)
		}
	}
	// A statement counts as written; a let is expanded only where the
	// body (or a let the body uses) uses it, as the planner plans it.
	for _, st := range q.Stmts {
		if err := c.top(st, false); err != nil {
			return err
		}
	}
	return c.top(q.Body, true)
}

// checkTree applies checkQuery's limits to a lone expression.
func checkTree(e Expr) *Error {
	return (&treeCheck{}).top(e, false)
}

// letCost is what a tabular let adds where it is used.
type letCost struct {
	let          *LetStmt
	busy, done   bool
	nodes, depth int
}

// treeCheck counts nodes over a whole query; lets are the final bindings
// of the tabular lets.
type treeCheck struct {
	lets  map[string]*letCost
	total int
	// kids are the children of the node being walked, gathered by visit.
	kids  []Node
	first bool
	visit func(Node) bool
}

func (c *treeCheck) add(n int, at Node) *Error {
	if c.total += n; c.total > MaxNodes {
		return errNodes(at.Span().Start)
	}
	return nil
}

func (c *treeCheck) top(n Node, expand bool) *Error {
	nodes, _, err := c.walk(n, MaxNodes-c.total, expand, 0)
	if err != nil {
		return err
	}
	return c.add(nodes, n)
}

// cost returns the expanded size and depth of a tabular let, computed on
// its first use. level counts the lets being expanded around this one.
func (c *treeCheck) cost(lc *letCost, ref *TableRef, level int) (*letCost, *Error) {
	switch {
	case lc.done:
		return lc, nil
	case lc.busy:
		return nil, &Error{Pos: ref.Sp.Start, Msg: "let " + lc.let.Name + " uses itself here: a tabular let cannot refer to its own name, directly or through another let; give it a name of its own"}
	case level > MaxDepth:
		return nil, errLetDepth(ref.Sp.Start)
	}
	lc.busy = true
	nodes, depth, err := c.walk(lc.let.Tabular, MaxNodes, true, level+1)
	if err != nil {
		return nil, err
	}
	lc.busy, lc.done, lc.nodes, lc.depth = false, true, nodes, depth
	return lc, nil
}

// walk counts the nodes below root, uses of tabular lets expanded when
// expand is set, and returns the deepest level reached. It walks with an
// explicit stack, since the trees it exists to refuse are too deep for a
// recursive walk, and stops at the first node past a limit.
func (c *treeCheck) walk(root Node, budget int, expand bool, level int) (nodes, deepest int, err *Error) {
	type frame struct {
		n     Node
		depth int
	}
	stack := append(make([]frame, 0, 32), frame{root, 1})
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		d := f.depth
		if ref, ok := f.n.(*TableRef); ok && expand && !ref.Pattern && c.lets[ref.Name] != nil {
			lc, err := c.cost(c.lets[ref.Name], ref, level)
			if err != nil {
				return 0, 0, err
			}
			nodes += lc.nodes
			if d += lc.depth; d > MaxDepth {
				return 0, 0, errLetDepth(ref.Sp.Start)
			}
		}
		if nodes > budget {
			return 0, 0, errNodes(f.n.Span().Start)
		}
		if d > MaxDepth {
			return 0, 0, errDepth(f.n.Span().Start)
		}
		deepest = max(deepest, d)
		c.children(f.n)
		for i := len(c.kids) - 1; i >= 0; i-- {
			stack = append(stack, frame{c.kids[i], f.depth + 1})
		}
	}
	return nodes, deepest, nil
}

// children sets kids to n's direct children: Walk hands each child to
// visit, which declines to go further down.
func (c *treeCheck) children(n Node) {
	if c.visit == nil {
		c.visit = func(k Node) bool {
			if c.first {
				c.first = false
				return true
			}
			c.kids = append(c.kids, k)
			return false
		}
	}
	c.kids, c.first = c.kids[:0], true
	Walk(n, c.visit)
}

func errNodes(at Pos) *Error {
	return &Error{Pos: at, Msg: "the query has more than " + itoa(MaxNodes) + " syntax nodes (names, literals, operators, calls, columns and stages, a tabular let counted again at each use); split it into smaller queries"}
}

func errLetDepth(at Pos) *Error {
	return &Error{Pos: at, Msg: "the query nests deeper than " + itoa(MaxDepth) + " levels once the tabular let used here is expanded; use fewer lets inside lets"}
}

func errDepth(at Pos) *Error {
	return &Error{Pos: at, Msg: "the expression starting here nests deeper than " + itoa(MaxDepth) + " levels (operators chained or nested); for many alternatives of one value write `x in (a, b, …)`"}
}

// checkStages refuses more than MaxStages pipes, at the first one past
// the limit, before the grammar builds anything.
func checkStages(toks []lexer.Token) ErrorList {
	n := 0
	for i := range toks {
		if t := &toks[i]; t.Type == tOp && t.Value == "|" {
			if n++; n > MaxStages {
				return ErrorList{errAt(t, "the query has more than "+itoa(MaxStages)+` tabular operators (one after each "|"); split it into smaller queries`)}
			}
		}
	}
	return nil
}
