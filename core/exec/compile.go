package exec

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// cursorExpr is cursor_current(): the cursor of each row, made from its
// _time as the result's min/max cursors are (cursor.go), so a row's
// cursor resumes a query there.
func cursorExpr(col int, sp srcpos.Span) *Expr {
	node := &plan.Expr{Kind: plan.KCursor, Type: vector.String, Index: col, Pos: posOf(sp)}
	return &Expr{Typ: vector.String, Col: -1, Span: sp, Node: node, Eval: func(x *Ctx, b *Batch) (*vector.Vector, error) {
		t, err := b.Col(col)
		if err != nil {
			return nil, err
		}
		out := vector.New(vector.String, b.N)
		for i := 0; i < b.N; i++ {
			if t.IsNull(i) {
				out.AppendNull()
			} else {
				out.AppendStr(makeCursor(t.Int(i)))
			}
		}
		return out, nil
	}}
}
