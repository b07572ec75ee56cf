// Package srcpos holds the position of a node in the query text. It is a
// leaf of its own so that the execution (core/exec), which reports errors
// at the place in the query they come from, need not import the parser and
// its AST: parser.Pos and parser.Span are aliases of these types.
package srcpos

// Pos is a position in the query text. Line and Col are 1-based; Col
// counts runes. Offset is the 0-based byte offset.
type Pos struct {
	Offset int
	Line   int
	Col    int
}

// Span is the half-open source range [Start, End) of a node.
type Span struct {
	Start Pos
	End   Pos
}
