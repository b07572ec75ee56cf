package core

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// pack(*) and bag_pack(*) pack every column of the input into one bag,
// name to value: Axiom's performance guide uses `extend event = pack(*)`
// to carry whole events, so the star expands here, at plan time, into the
// name/value pairs of the input's columns (the star has no value of its
// own).

// isPackStar reports whether call is pack(*) or bag_pack(*).
func isPackStar(call *parser.CallExpr) bool {
	if call.Name != "pack" && call.Name != "bag_pack" || len(call.Args) != 1 {
		return false
	}
	_, star := call.Args[0].(*parser.StarExpr)
	return star
}

// packStar compiles pack(*) as bag_pack("col1", col1, "col2", col2, …).
func (c *compiler) packStar(call *parser.CallExpr) (*typed, error) {
	args := make([]*typed, 0, 2*len(c.in))
	for i, col := range c.in {
		args = append(args, constExpr(vector.String, col.Name, call.Sp), colExpr(i, col, call.Sp))
	}
	return c.callFunc(call, fn.Lookup("bag_pack"), args)
}
