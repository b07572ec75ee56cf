package core

import "testing"

// Every function that takes a regular expression refuses a constant one
// that does not compile with a query error at that argument (the server
// answers 400 with the position), before any row is read; so do the
// operators that take one.
func TestInvalidPatternIsAQueryError(t *testing.T) {
	const src = "datatable(s: string) ['abc'] | "
	col := len(src) + 1
	for _, c := range []struct {
		q   string
		col int
	}{
		{"extend e = extract('(', 1, s)", col + 19},
		{"extend e = extract_all('a(', s)", col + 23},
		{"extend e = extract_all('[', dynamic([1]), s)", col + 23},
		{"extend e = replace_regex('(', 'x', s)", col + 25},
		{"extend e = replace('*', 'x', s)", col + 19},
		{"extend e = countof_regex('(', s)", col + 25},
		{"extend e = indexof_regex(s, 'a)')", col + 28},
		{"extend e = trim_regex('(', s)", col + 22},
		{"extend e = trim_start_regex('(', s)", col + 28},
		{"extend e = trim_end_regex('(', s)", col + 26},
		{"extend e = extract(strcat('(', 'a'), 1, s)", col + 19},
		{"where s matches regex '('", col + 22},
		{"parse kind=regex s with '(' x", 0},
		{"parse-kv s as (a: string) with (regex='(')", 0},
		{"redact '(' on s", 0},
	} {
		if c.col == 0 { // the operators: positioned, in their own words
			opsExpectError(t, src+c.q, 0, 0, "")
			continue
		}
		opsExpectError(t, src+c.q, 1, c.col, "invalid regular expression")
	}
	// A pattern that compiles still answers.
	opsExpect(t, src+"project e = extract('(b)', 1, s)", "e:string", `["b"]`)
}

// A pattern computed per row that does not compile fails the query at
// the pattern (it answered null, or matched nothing, for that row); one
// that compiles answers.
func TestInvalidRowPatternIsAQueryError(t *testing.T) {
	const src = "datatable(s: string) ['abc', 'x('] | "
	col := len(src) + 1
	opsExpectError(t, src+"extend e = extract(strcat(s, ''), 0, s)", 1, col+19, "invalid regular expression")
	opsExpectError(t, src+"extend e = replace_regex(s, 'y', 'z')", 1, col+25, "invalid regular expression")
	opsExpectError(t, src+"extend e = trim_regex(s, s)", 1, col+22, "invalid regular expression")
	opsExpectError(t, src+"where 'abc' matches regex s", 1, col+26, "invalid regular expression")
	opsExpect(t, "datatable(s: string) ['abc', 'x'] | project e = extract(strcat('(', s, ')'), 1, s)",
		"e:string", `["abc"]`, `["x"]`)
	opsExpect(t, "datatable(s: string) ['a.c', 'x'] | where 'abc' matches regex s", "s:string", `["a.c"]`)
}
