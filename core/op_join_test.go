package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// joinData has duplicate keys on both sides, keys present on one side
// only, and a null key on each side (which must match nothing).
const joinData = `let L = datatable(id:long, name:string)[1,'a', 2,'b', 2,'b2', 3,'c', long(null),'n'];
let R = datatable(id:long, v:string)[2,'x', 4,'z', 2,'y', long(null),'rn'];
`

func TestJoinKinds(t *testing.T) {
	both := "id:integer, name:string, id1:integer, v:string"
	inner := []string{`[2,"b",2,"x"]`, `[2,"b",2,"y"]`, `[2,"b2",2,"x"]`, `[2,"b2",2,"y"]`}
	leftOuter := []string{`[1,"a",null,null]`, `[2,"b",2,"x"]`, `[2,"b",2,"y"]`, `[2,"b2",2,"x"]`, `[2,"b2",2,"y"]`, `[3,"c",null,null]`, `[null,"n",null,null]`}
	rightOnly := []string{`[null,null,4,"z"]`, `[null,null,null,"rn"]`}
	cases := []struct {
		kind, cols string
		rows       []string
	}{
		{"", both, inner}, // APL's default is inner, not KQL's innerunique
		{"kind=inner", both, inner},
		{"kind=innerunique", both, []string{`[2,"b",2,"x"]`, `[2,"b2",2,"x"]`}},
		{"kind=leftouter", both, leftOuter},
		{"kind=rightouter", both, append(slices.Clone(inner), rightOnly...)},
		{"kind=fullouter", both, append(slices.Clone(leftOuter), rightOnly...)},
		{"kind=leftsemi", "id:integer, name:string", []string{`[2,"b"]`, `[2,"b2"]`}},
		{"kind=leftanti", "id:integer, name:string", []string{`[1,"a"]`, `[3,"c"]`, `[null,"n"]`}},
		{"kind=leftantisemi", "id:integer, name:string", []string{`[1,"a"]`, `[3,"c"]`, `[null,"n"]`}},
		{"kind=rightsemi", "id:integer, v:string", []string{`[2,"x"]`, `[2,"y"]`}},
		{"kind=rightanti", "id:integer, v:string", []string{`[4,"z"]`, `[null,"rn"]`}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			opsExpect(t, joinData+"L | join "+c.kind+" R on id", c.cols, c.rows...)
		})
	}
}

// TestJoinBuildLeft exercises the plan where the left side is smaller and
// is the one hashed: the output order must still follow the left side.
func TestJoinBuildLeft(t *testing.T) {
	l := "datatable(id:long)[2, 9] | join %s R on id"
	cases := []struct {
		kind string
		rows []string
	}{
		{"kind=inner", []string{`[2,2,"x"]`, `[2,2,"y"]`}},
		{"kind=innerunique", []string{`[2,2,"x"]`}},
		{"kind=leftouter", []string{`[2,2,"x"]`, `[2,2,"y"]`, `[9,null,null]`}},
		{"kind=rightouter", []string{`[2,2,"x"]`, `[2,2,"y"]`, `[null,4,"z"]`, `[null,null,"rn"]`}},
		{"kind=leftanti", []string{`[9]`}},
		{"kind=rightsemi", []string{`[2,"x"]`, `[2,"y"]`}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			res := opsQuery(t, joinData+fmt.Sprintf(l, c.kind))
			if got := opsRows(t, res); !slices.Equal(got, c.rows) {
				t.Errorf("got %v, want %v", got, c.rows)
			}
		})
	}
}

func TestJoinConditionForms(t *testing.T) {
	data := `let A = datatable(a:string, b:long)['x',1, 'y',2, 'z',3];
let B = datatable(k:string, b:long, c:string)['y',2,'c2', 'z',30,'c3', 'x',1,'c1'];
`
	cases := []struct{ name, on, cols string }{
		{"dollar", "$left.a == $right.k", "a:string, b:integer, k:string, b1:integer, c:string"},
		{"dollar reversed", "$right.k == $left.a", "a:string, b:integer, k:string, b1:integer, c:string"},
		{"plain equality", "a == k", "a:string, b:integer, k:string, b1:integer, c:string"},
		{"expression", "strcat(a, '') == $right.k", "a:string, b:integer, k:string, b1:integer, c:string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opsExpect(t, data+"A | join kind=inner B on "+c.on, c.cols,
				`["x",1,"x",1,"c1"]`, `["y",2,"y",2,"c2"]`, `["z",3,"z",30,"c3"]`)
		})
	}
	t.Run("two conditions", func(t *testing.T) {
		opsExpect(t, data+"A | join kind=inner B on $left.a == $right.k, b", "a:string, b:integer, k:string, b1:integer, c:string",
			`["x",1,"x",1,"c1"]`, `["y",2,"y",2,"c2"]`)
	})
	t.Run("long with real", func(t *testing.T) {
		opsExpect(t, "datatable(x:long)[1, 2] | join kind=inner (datatable(y:real)[2.0, 2.5]) on x == y",
			"x:integer, y:float", `[2,2]`)
	})
	t.Run("subquery right side", func(t *testing.T) {
		opsExpect(t, data+"A | join kind=leftsemi (B | where c != 'c2') on $left.a == $right.k", "a:string, b:integer",
			`["x",1]`, `["z",3]`)
	})
}

// TestJoinAfterFilter runs the streaming join over batches that carry a
// selection vector, both when each left row comes out once and when rows
// repeat.
func TestJoinAfterFilter(t *testing.T) {
	opsExpect(t, joinData+"L | where name != 'b2' | join kind=leftouter (R | where v != 'y') on id", "id:integer, name:string, id1:integer, v:string",
		`[1,"a",null,null]`, `[2,"b",2,"x"]`, `[3,"c",null,null]`, `[null,"n",null,null]`)
	opsExpect(t, joinData+"L | where name != 'a' | join kind=inner R on id | project name, v", "name:string, v:string",
		`["b","x"]`, `["b","y"]`, `["b2","x"]`, `["b2","y"]`)
	opsExpect(t, joinData+"L | where name != 'b' | join kind=leftsemi R on id", "id:integer, name:string", `[2,"b2"]`)
	opsExpect(t, joinData+"L | where name != 'b' | join kind=leftanti R on id", "id:integer, name:string", `[1,"a"]`, `[3,"c"]`, `[null,"n"]`)
}

func TestJoinEmptySides(t *testing.T) {
	q := joinData + "L | where id > 100 | join kind=%s R on id"
	for kind, want := range map[string][]string{
		"inner":      nil,
		"leftouter":  nil,
		"rightouter": {`[null,null,2,"x"]`, `[null,null,4,"z"]`, `[null,null,2,"y"]`, `[null,null,null,"rn"]`},
		"rightanti":  {`[2,"x"]`, `[4,"z"]`, `[2,"y"]`, `[null,"rn"]`},
	} {
		res := opsQuery(t, fmt.Sprintf(q, kind))
		if got := opsRows(t, res); !slices.Equal(got, want) {
			t.Errorf("empty left, %s: got %v, want %v", kind, got, want)
		}
	}
	res := opsQuery(t, joinData+"L | join kind=leftouter (R | where id > 100) on id")
	if res.NumRows() != 5 || res.Value(0, 3) != nil {
		t.Errorf("empty right leftouter: got %v", opsRows(t, res))
	}
	res = opsQuery(t, joinData+"L | join kind=inner (R | where id > 100) on id")
	if res.NumRows() != 0 {
		t.Errorf("empty right inner: got %v", opsRows(t, res))
	}
}

func TestJoinErrors(t *testing.T) {
	cases := []struct {
		q         string
		line, col int
		want      string
	}{
		{joinData + "L | join R on name", 3, 15, `join key "name" is not a field of the right side`},
		{joinData + "L | join R on nope", 3, 15, `not a field of the left side`},
		{joinData + "L | join R on $left.name == $right.id", 3, 15, "compares string (left) with long (right)"},
		{joinData + "L | join R on id < id", 3, 15, "must be an equality"},
		{joinData + "L | join R on $left.id == $left.id", 3, 15, "both sides of the join condition read $left"},
		{joinData + "L | join R on $left.zz == $right.id", 3, 15, `unknown field "zz" on the left side`},
		{joinData + "L | join R on $left.id == $right.id + $left.id", 3, 15, "not both"},
		{joinData + "L | join (R | where nope > 1) on id", 3, 21, `unknown field or variable "nope"`},
	}
	for _, c := range cases {
		opsExpectError(t, c.q, c.line, c.col, c.want)
	}
}

// TestJoinMemoryBudget checks that a many-to-many join fails with the
// memory error instead of growing without bound.
func TestJoinMemoryBudget(t *testing.T) {
	q := "let A = datatable(k:long)[1,1,1,1,1,1,1,1,1,1]; A | join kind=inner (A | join kind=inner A on k | join kind=inner A on k | join kind=inner A on k | join kind=inner A on k) on k | count"
	err := opsQueryErr(q, &exec.Request{MemoryBudget: 1 << 20})
	if !errors.Is(err, exec.ErrMemoryExceeded) {
		t.Fatalf("want ErrMemoryExceeded, got %v", err)
	}
	res, err := NewEngine(nil).Query(context.Background(), &exec.Request{APL: "let A = datatable(k:long)[1,1,1]; A | join kind=inner (A | join kind=inner A on k) on k | count"})
	if err != nil || res.Value(0, 0) != int64(27) {
		t.Fatalf("3x9 join count: %v, %v", err, res)
	}
}
