package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/output"
)

// opsQuery runs q through the whole engine and fails the test on error.
func opsQuery(t *testing.T, q string) *output.Output {
	t.Helper()
	res, err := NewEngine(nil).Query(context.Background(), &exec.Request{APL: q})
	if err != nil {
		t.Fatalf("query failed: %v\n%s", err, q)
	}
	return res
}

// opsQueryErr runs q and returns its error (nil when it succeeded).
func opsQueryErr(q string, req *exec.Request) error {
	if req == nil {
		req = &exec.Request{}
	}
	req.APL = q
	_, err := NewEngine(nil).Query(context.Background(), req)
	return err
}

// opsRows renders a result as one JSON array per row, for compact
// comparisons in table tests.
func opsRows(t *testing.T, res *output.Output) []string {
	t.Helper()
	names, _ := res.Columns()
	out := make([]string, res.NumRows())
	for i := range out {
		row := make([]any, len(names))
		for j := range names {
			row[j] = res.Value(i, j)
		}
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(row); err != nil {
			t.Fatal(err)
		}
		out[i] = strings.TrimSuffix(sb.String(), "\n")
	}
	return out
}

// opsColumns renders "name:type" for every output column.
func opsColumns(res *output.Output) string {
	names, types := res.Columns()
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = names[i] + ":" + types[i]
	}
	return strings.Join(parts, ", ")
}

// opsExpect checks the columns and the rows (in order) of q's result.
func opsExpect(t *testing.T, q, cols string, rows ...string) {
	t.Helper()
	res := opsQuery(t, q)
	if got := opsColumns(res); got != cols {
		t.Errorf("columns:\n got %s\nwant %s\nquery: %s", got, cols, q)
	}
	got := opsRows(t, res)
	if strings.Join(got, "\n") != strings.Join(rows, "\n") {
		t.Errorf("rows:\n got %s\nwant %s\nquery: %s", strings.Join(got, "\n     "), strings.Join(rows, "\n     "), q)
	}
}

// opsExpectError checks that q fails with a positioned query error whose
// message contains want.
func opsExpectError(t *testing.T, q string, line, col int, want string) {
	t.Helper()
	err := opsQueryErr(q, nil)
	var qe *exec.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("want a QueryError containing %q, got %v\nquery: %s", want, err, q)
	}
	if !strings.Contains(qe.Msg, want) || (line > 0 && (qe.Line != line || qe.Col != col)) {
		t.Errorf("got error %d:%d %q, want %d:%d containing %q\nquery: %s", qe.Line, qe.Col, qe.Msg, line, col, want, q)
	}
}

// testFnContext is a fixed function context for stage-level tests.
func testFnContext() *fn.Context {
	return &fn.Context{Now: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), Rand: 1}
}
