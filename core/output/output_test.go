package output

import (
	"math"
	"testing"
	"time"

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

// Text is tostring(): the same text whether a value is boxed (a
// time.Time) or JSON-ready (its RFC 3339 string).
func TestText(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, ""}, {"a b", "a b"}, {true, "true"}, {int64(-42), "-42"}, {2.5, "2.5"}, {1e21, "1e+21"},
		{math.NaN(), "NaN"}, {math.Inf(-1), "-Infinity"}, {ts, "2026-01-02T03:04:05.0000006Z"},
		{90 * time.Second, "1m30s"}, {[]any{int64(1), "x", ts}, `[1,"x","2026-01-02T03:04:05.0000006Z"]`},
		{map[string]any{"d": time.Second}, `{"d":"1s"}`},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
