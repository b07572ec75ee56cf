package output

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

// WithMessage never writes into the Output it copies: a cached Output is
// shared by every request that hits it.
func TestWithMessageLeavesOriginal(t *testing.T) {
	base := &Output{Messages: make([]Message, 1, 8)}
	base.Messages[0] = Message{Code: "damaged"}
	a := base.WithMessage(Message{Code: "a"})
	b := base.WithMessage(Message{Code: "b"})
	if len(base.Messages) != 1 {
		t.Fatalf("original has %d messages", len(base.Messages))
	}
	if a.Messages[1].Code != "a" || b.Messages[1].Code != "b" {
		t.Errorf("copies share their messages: %v / %v", a.Messages, b.Messages)
	}
}

func TestAccessors(t *testing.T) {
	v := vector.New(vector.Int, 2)
	v.AppendInt(7)
	v.AppendNull()
	o := &Output{Table: Table{Rows: 2, Columns: []Column{{Name: "n", Type: vector.Int, Vec: v}}}, Stats: Stats{RowsExamined: 9}}
	names, types := o.Columns()
	if names[0] != "n" || types[0] != "integer" || o.NumRows() != 2 || o.Value(0, 0) != int64(7) || o.Value(1, 0) != nil {
		t.Errorf("names %v types %v rows %d values %v %v", names, types, o.NumRows(), o.Value(0, 0), o.Value(1, 0))
	}
	if o.RowsExamined() != 9 || o.Table.Index("n") != 0 || o.Table.Index("m") != -1 {
		t.Error("RowsExamined or Index wrong")
	}
}
