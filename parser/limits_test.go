package parser

import (
	"runtime"
	"strings"
	"testing"
)

// wantLimitErr parses src and checks for exactly one error at line:col
// whose message contains msg.
func wantLimitErr(t *testing.T, src string, line, col int, msg string) {
	t.Helper()
	_, err := Parse(src)
	list, ok := err.(ErrorList)
	if !ok || len(list) != 1 {
		t.Fatalf("want one error at %d:%d containing %q, got %v", line, col, msg, err)
	}
	if e := list[0]; e.Pos.Line != line || e.Pos.Col != col || !strings.Contains(e.Msg, msg) {
		t.Fatalf("got %v, want %d:%d: …%s…", e, line, col, msg)
	}
}

func mustParse(t *testing.T, src string) *Query {
	t.Helper()
	q, err := Parse(src)
	if err != nil {
		t.Fatalf("%.80s…: %v", src, err)
	}
	return q
}

// A text over MaxQueryBytes is refused before it is scanned, at the first
// byte past the limit, its line and rune column counted.
func TestQueryLengthLimit(t *testing.T) {
	head := "print x = 1\n| where s == \"é"
	pad := MaxQueryBytes - len(head) - 1 // the closing quote ends at the limit
	src := head + strings.Repeat("a", pad) + "\""
	if len(src) != MaxQueryBytes {
		t.Fatal(len(src))
	}
	mustParse(t, src)
	// 6 MB of `+1`, the chain that overflowed the stack, is refused
	// without allocating more than the error.
	chain := "print x = 1" + strings.Repeat("+1", 3_000_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	wantLimitErr(t, chain, 1, MaxQueryBytes+1, "the query is 6000011 bytes long, over the limit of 1048576 bytes (1 MiB)")
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("refusing a 6 MB query allocated %d bytes", n)
	}
	// The column counts runes: "é" is two bytes.
	long := src + " or true"
	wantLimitErr(t, long, 2, MaxQueryBytes-len("print x = 1\n"), "over the limit of 1048576 bytes")
	if _, err := ParseExpr("1" + strings.Repeat("+1", MaxQueryBytes)); err == nil || !strings.Contains(err.Error(), "1:1048577: the query is 2097153 bytes long") {
		t.Errorf("ParseExpr: %v", err)
	}
}

func TestTokenLimit(t *testing.T) {
	// 120,000 tokens in 120 kB: far under the length limit.
	src := "print x = dynamic([" + strings.Repeat("1,", 60_000) + "1])"
	// `print x = dynamic ( [` are tokens 1-5, then "1" and "," take
	// turns: token 100,001 is the "1" after 49,997 of them.
	col := len("print x = dynamic([") + 2*((MaxTokens-5)/2) + 1
	wantLimitErr(t, src, 1, col, "the query has more than 100000 tokens")
}

// Text has about as many nodes as tokens; a tabular let used several
// times is where the tree the planner plans outgrows the text.
func TestNodeLimit(t *testing.T) {
	// c is 30,005 nodes as written and 30,003 at each use.
	let := "let c = T | project " + strings.Repeat("a, ", 14_999) + "a;\n"
	mustParse(t, let+"union c, c")
	wantLimitErr(t, let+"union c, c, c", 2, 13, "the query has more than 100000 syntax nodes")
}

func TestDepthLimitOnOperatorChains(t *testing.T) {
	// Pipeline, PrintSource, NamedExpr, then the chain: n `+` put the
	// innermost 1 at depth 4+n.
	plus := func(n int) string { return "print x = 1" + strings.Repeat("+1", n) }
	mustParse(t, plus(MaxDepth-4))
	wantLimitErr(t, plus(MaxDepth-3), 1, 11, "the expression starting here nests deeper than 1000 levels")
	// A chain far longer stops where it passes the limit.
	wantLimitErr(t, plus(40_000), 1, 11, "nests deeper than 1000 levels")
	for _, op := range []string{"or", "and", "*", "==", "contains", "."} {
		src := "t\n| where  a" + strings.Repeat(" "+op+" a", 5_000)
		if op == "." {
			src = "t\n| where  a" + strings.Repeat(".a", 5_000)
		}
		wantLimitErr(t, src, 2, 10, "nests deeper than 1000 levels")
	}
	// A member chain stops where it passes the limit too.
	wantLimitErr(t, "t | extend x = d"+strings.Repeat(".a", 40_000), 1, 16, "nests deeper than 1000 levels")
	wantLimitErr(t, "t | extend x = d"+strings.Repeat("[0]", 20_000), 1, 16, "nests deeper than 1000 levels")
	// Legitimate sizes keep working: a 900-term or, a 20,000-value in.
	or := "t | where " + strings.Repeat("id == 'x' or ", 899) + "id == 'y'"
	mustParse(t, or)
	in := "t | where id in (" + strings.Repeat("'0123456789abcdef0123456789abcdef', ", 19_999) + "'x')"
	mustParse(t, in)
	if _, err := ParseExpr("a" + strings.Repeat(" or a", 5_000)); err == nil || !strings.HasPrefix(err.Error(), "1:1: the expression starting here nests deeper") {
		t.Errorf("ParseExpr: %v", err)
	}
}

func TestStageLimit(t *testing.T) {
	stages := func(n int) string { return "t" + strings.Repeat(" | take 1", n) }
	mustParse(t, stages(MaxStages))
	wantLimitErr(t, stages(20_000), 1, 2+len(" | take 1")*MaxStages+1, "the query has more than 1000 tabular operators")
}

// A tabular let is planned again at each use; the limits count it so.
func TestLetExpansionLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("let t0 = T;\n")
	for i := 1; i <= 30; i++ {
		b.WriteString("let t" + itoa(i) + " = union t" + itoa(i-1) + ", t" + itoa(i-1) + ";\n")
	}
	b.WriteString("t30 | count")
	// Each let doubles the one before: the second use of t13, in t14 on
	// line 15, passes the limit.
	wantLimitErr(t, b.String(), 15, 22, "the query has more than 100000 syntax nodes")
	// Unused, the same lets cost what they are written as.
	mustParse(t, strings.Replace(b.String(), "t30 | count", "T | count", 1))

	chain := func(n int) string {
		var b strings.Builder
		b.WriteString("let t0 = T;\n")
		for i := 1; i < n; i++ {
			b.WriteString("let t" + itoa(i) + " = t" + itoa(i-1) + ";\n")
		}
		return b.String() + "t" + itoa(n-1) + " | count"
	}
	mustParse(t, chain(400))
	wantLimitErr(t, chain(600), 501, 12, "nests deeper than 1000 levels once the tabular let used here is expanded")
}

// The planner resolves a name in a let by the last let of that name, so
// these would expand without end; they are refused at the use.
func TestLetThatUsesItself(t *testing.T) {
	wantLimitErr(t, "let t = t | take 1; t", 1, 9, "let t uses itself here")
	wantLimitErr(t, "let a = b;\nlet b = a | where x > 1;\na", 2, 9, "let a uses itself here")
	wantLimitErr(t, "let t = print x = 1; let t = t | take 1; t", 1, 30, "let t uses itself here")
	// A scalar let that rebinds the name ends the tabular one.
	mustParse(t, "let t = print x = 1; let t = 5; T | where x == t")
	mustParse(t, "let a = T | where x > 1; a | join (a) on x")
}
