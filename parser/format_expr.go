package parser

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// FormatExpr prints an expression in canonical form: single spaces around
// binary operators, double-quoted strings, and only the parentheses the
// precedence rules need to give back the same tree.
func FormatExpr(e Expr) string {
	var p printer
	p.expr(e)
	return p.b.String()
}

// printer accumulates canonical text.
type printer struct {
	b strings.Builder
}

func (p *printer) ws(s ...string) {
	for _, x := range s {
		p.b.WriteString(x)
	}
}

func binPrec(op string) int {
	switch op {
	case "or":
		return precOr
	case "and":
		return precAnd
	case "==", "!=":
		return precEq
	case "<", "<=", ">", ">=":
		return precRel
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	}
	return precStr
}

// exprPrec is how tightly e binds when printed bare.
func exprPrec(e Expr) int {
	switch e := e.(type) {
	case *BinaryExpr:
		return binPrec(e.Op)
	case *InExpr, *BetweenExpr:
		return precEq
	case *UnaryExpr:
		return precUnary
	case *Literal:
		if isNegativeLiteral(e) {
			return precUnary
		}
	case *MemberExpr, *IndexExpr, *SliceExpr:
		return precPostfix
	}
	return precPrimary
}

func isNegativeLiteral(l *Literal) bool {
	switch v := l.Value.(type) {
	case int64:
		return v < 0
	case float64:
		return l.Kind == LitReal && (v < 0 || v == 0 && math.Signbit(v)) && !math.IsInf(v, 0)
	case time.Duration:
		return v < 0
	}
	return false
}

// sub prints e, parenthesised when it binds looser than min.
func (p *printer) sub(e Expr, min int) {
	if exprPrec(e) < min {
		p.ws("(")
		p.expr(e)
		p.ws(")")
		return
	}
	p.expr(e)
}

func (p *printer) expr(e Expr) {
	switch e := e.(type) {
	case nil:
	case *BinaryExpr:
		prec := binPrec(e.Op)
		p.sub(e.L, prec)
		if e.Op == ":" {
			p.ws(":") // search's field:"term"
		} else {
			p.ws(" ", e.Op, " ")
		}
		p.sub(e.R, prec+1)
	case *UnaryExpr:
		p.ws(e.Op)
		if l, ok := e.X.(*Literal); ok && (l.Kind == LitInt || l.Kind == LitReal || l.Kind == LitTimeSpan) {
			// -(1) must not print as the literal -1.
			p.ws("(")
			p.expr(e.X)
			p.ws(")")
			return
		}
		p.sub(e.X, precUnary)
	case *InExpr:
		p.sub(e.X, precEq)
		p.ws(" ", e.Op, " (")
		p.exprList(e.List)
		p.ws(")")
	case *BetweenExpr:
		p.sub(e.X, precEq)
		if e.Not {
			p.ws(" !between (")
		} else {
			p.ws(" between (")
		}
		p.expr(e.Lo)
		p.ws(" .. ")
		p.expr(e.Hi)
		p.ws(")")
	default:
		p.postfixExpr(e)
	}
}

func (p *printer) postfixExpr(e Expr) {
	switch e := e.(type) {
	case *MemberExpr:
		p.sub(e.X, precPostfix)
		p.ws(".")
		p.name(e.Name, false)
	case *IndexExpr:
		p.sub(e.X, precPostfix)
		p.ws("[")
		p.expr(e.Index)
		p.ws("]")
	case *SliceExpr:
		p.sub(e.X, precPostfix)
		p.ws("[")
		if e.Lo != nil {
			p.expr(e.Lo)
		}
		p.ws(":")
		if e.Hi != nil {
			p.expr(e.Hi)
		}
		p.ws("]")
	case *CallExpr:
		p.ws(e.Name, "(")
		if rawCallWords[e.Name] {
			// time(0) would read back as a timespan literal; an argument
			// in brackets keeps it a call (fuzzing found time((0))).
			for i, a := range e.Args {
				if i > 0 {
					p.ws(", ")
				}
				p.ws("(")
				p.expr(a)
				p.ws(")")
			}
		} else {
			p.exprList(e.Args)
		}
		p.ws(")")
	case *NamedArg:
		p.ws(e.Name, " = ")
		p.expr(e.Value)
	case *Ident:
		// true, false and null would read back as literals.
		p.name(e.Name, e.Quoted || notBare[e.Name])
	case *Literal:
		p.literal(e)
	case *StarExpr:
		p.ws("*")
	case *TypeExpr:
		p.ws(e.Type.String())
	case *SubqueryExpr:
		p.pipeline(e.Pipe, " | ")
	}
}

func (p *printer) exprList(es []Expr) {
	for i, e := range es {
		if i > 0 {
			p.ws(", ")
		}
		p.expr(e)
	}
}

// name prints an identifier, bracket-quoting it when it was quoted or is
// not a valid bare name.
func (p *printer) name(n string, quoted bool) {
	if quoted || !isBareName(n) {
		p.ws("['", escapeQuoted(n, '\''), "']")
		return
	}
	p.ws(n)
}

var notBare = map[string]bool{"true": true, "false": true, "TRUE": true, "FALSE": true, "True": true, "False": true, "null": true}

func isBareName(n string) bool {
	if hyphenWords[n] {
		return true // lexed as one name token
	}
	if n == "" || !isIdentStart(n[0]) {
		return false
	}
	for i := 1; i < len(n); i++ {
		if !isIdentChar(n[i]) {
			return false
		}
	}
	return true
}

func (p *printer) literal(l *Literal) {
	switch l.Kind {
	case LitNull:
		if l.Type == vector.Null {
			p.ws("null")
		} else {
			p.ws(l.Type.String(), "(null)")
		}
	case LitBool:
		p.ws(strconv.FormatBool(l.Value.(bool)))
	case LitInt:
		p.ws(strconv.FormatInt(l.Value.(int64), 10))
	case LitReal:
		p.ws(formatReal(l.Value.(float64)))
	case LitString:
		p.ws(quoteString(l.Value.(string)))
	case LitDateTime:
		p.ws("datetime(", l.Value.(time.Time).UTC().Format(time.RFC3339Nano), ")")
	case LitTimeSpan:
		p.ws(formatDuration(l.Value.(time.Duration)))
	case LitDynamic:
		p.ws("dynamic(")
		p.json(l.Value)
		p.ws(")")
	}
}

func formatReal(v float64) string {
	switch {
	case math.IsNaN(v):
		return "real(nan)"
	case math.IsInf(v, 1):
		return "real(+inf)"
	case math.IsInf(v, -1):
		return "real(-inf)"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

var durationUnits = []struct {
	d    time.Duration
	name string
}{
	{day, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"},
	{time.Millisecond, "ms"}, {time.Microsecond, "microseconds"}, {100, "ticks"}, {1, "nanoseconds"},
}

// formatDuration prints a timespan in the largest unit that divides it.
func formatDuration(d time.Duration) string {
	if d == math.MinInt64 {
		return "-9223372036854775808nanoseconds"
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	if d == 0 {
		return "0s"
	}
	for _, u := range durationUnits {
		if d%u.d == 0 {
			return sign + strconv.FormatInt(int64(d/u.d), 10) + u.name
		}
	}
	return sign + strconv.FormatInt(int64(d), 10) + "nanoseconds"
}

// quoteString prints a string literal: verbatim @"..." when it holds
// backslashes (regular expressions read better that way) and nothing that
// needs an escape, else "..." with backslash escapes.
func quoteString(s string) string {
	if strings.IndexByte(s, '\\') >= 0 && !needsEscape(s) {
		return `@"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return `"` + escapeQuoted(s, '"') + `"`
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r < ' ' || r == 0x7f || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// escapeQuoted escapes s for a literal delimited by q.
func escapeQuoted(s string, q byte) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// json prints a dynamic value; object keys are sorted for a stable text.
func (p *printer) json(v any) {
	switch v := v.(type) {
	case nil:
		p.ws("null")
	case bool:
		p.ws(strconv.FormatBool(v))
	case int64:
		p.ws(strconv.FormatInt(v, 10))
	case float64:
		p.ws(formatReal(v))
	case string:
		p.ws(`"`, escapeQuoted(v, '"'), `"`)
	case []any:
		p.ws("[")
		for i, x := range v {
			if i > 0 {
				p.ws(", ")
			}
			p.json(x)
		}
		p.ws("]")
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		p.ws("{")
		for i, k := range keys {
			if i > 0 {
				p.ws(", ")
			}
			p.ws(`"`, escapeQuoted(k, '"'), `": `)
			p.json(v[k])
		}
		p.ws("}")
	}
}
