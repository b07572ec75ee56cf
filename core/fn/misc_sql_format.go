package fn

// format_sql: the inverse of parse_sql. Keywords and function names come
// out lower case, as in the example on Axiom's page; names are quoted
// only when they need it, order by's default asc is left out, and
// parentheses appear only where precedence requires them, so format_sql(parse_sql(q)) is a normalized q. A bag that
// is not a parse_sql model gives null.

import (
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

func evalFormatSQL(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		m, ok := bagAt(args[0], i)
		if !ok {
			return "", false
		}
		var f sqlFormatter
		f.stmt(m)
		return f.b.String(), !f.bad
	}), nil
}

// sqlFormatter writes one statement; bad records a malformed model, so
// the writers need not return errors.
type sqlFormatter struct {
	b   strings.Builder
	bad bool
}

func (f *sqlFormatter) str(s string) { f.b.WriteString(s) }

func (f *sqlFormatter) stmt(m map[string]any) {
	if m["statement"] != "select" {
		f.bad = true
		return
	}
	f.str("select ")
	if m["distinct"] == true {
		f.str("distinct ")
	}
	cols, ok := m["columns"].([]any)
	if !ok || len(cols) == 0 {
		f.bad = true
		return
	}
	f.each(cols, ", ", f.column)
	if from, ok := m["from"].([]any); ok && len(from) > 0 {
		f.str(" from ")
		for k, t := range from {
			f.table(t, k == 0)
		}
	}
	f.clauses(m)
}

func (f *sqlFormatter) clauses(m map[string]any) {
	if w, ok := m["where"]; ok {
		f.str(" where ")
		f.expr(w, 0)
	}
	if g, ok := m["group"].([]any); ok && len(g) > 0 {
		f.str(" group by ")
		f.each(g, ", ", func(e any) { f.expr(e, 0) })
	}
	if h, ok := m["having"]; ok {
		f.str(" having ")
		f.expr(h, 0)
	}
	if o, ok := m["order"].([]any); ok && len(o) > 0 {
		f.str(" order by ")
		f.each(o, ", ", f.orderItem)
	}
	for _, k := range []string{"limit", "offset"} {
		if v, ok := m[k]; ok {
			n, isInt := DynInt(v)
			if !isInt {
				f.bad = true
				return
			}
			f.str(" " + k + " " + strconv.FormatInt(n, 10))
		}
	}
}

func (f *sqlFormatter) each(items []any, sep string, write func(any)) {
	for k, x := range items {
		if k > 0 {
			f.str(sep)
		}
		write(x)
	}
}

func (f *sqlFormatter) column(c any) {
	f.expr(c, 0)
	if m, ok := c.(map[string]any); ok {
		f.alias(m["alias"], " as ")
	}
}

func (f *sqlFormatter) alias(a any, sep string) {
	if s, ok := a.(string); ok && s != "" {
		f.str(sep)
		if sqlPlainName(s) { // an alias is one name: a dot in it must be quoted
			f.str(s)
		} else {
			f.str(`"` + strings.ReplaceAll(s, `"`, `""`) + `"`)
		}
	}
}

// table writes one entry of "from": the first is the table read, each
// later one a join with its kind and condition.
func (f *sqlFormatter) table(t any, first bool) {
	m, ok := t.(map[string]any)
	table, ok2 := m["table"].(string)
	if !ok || !ok2 {
		f.bad = true
		return
	}
	kind, isJoin := m["join"]
	if first == isJoin {
		f.bad = true
		return
	}
	if isJoin {
		k, _ := kind.(string)
		switch k = sqlASCIILower(k); k {
		case "inner", "left", "right", "full":
		default:
			f.bad = true
			return
		}
		f.str(" " + k + " join ")
	}
	f.name(table)
	f.alias(m["alias"], " ")
	if on, ok := m["on"]; ok && isJoin {
		f.str(" on ")
		f.expr(on, 0)
	}
}

func (f *sqlFormatter) orderItem(o any) {
	m, ok := o.(map[string]any)
	if !ok {
		f.bad = true
		return
	}
	f.expr(m["expr"], 0)
	if d, _ := m["direction"].(string); strings.EqualFold(d, "desc") {
		f.str(" desc")
	}
}

// name writes an identifier, dotted names part by part, quoting a part
// that is not a plain identifier or is a keyword.
func (f *sqlFormatter) name(s string) {
	if s == "*" {
		f.str("*")
		return
	}
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "*" { // t.*: quote the qualifier alone
		f.name(strings.Join(parts[:len(parts)-1], "."))
		f.str(".*")
		return
	}
	for _, p := range parts {
		if !sqlPlainName(p) {
			f.str(`"` + strings.ReplaceAll(s, `"`, `""`) + `"`)
			return
		}
	}
	f.str(s)
}

func sqlPlainName(s string) bool {
	if s == "" || sqlReserved[strings.ToUpper(s)] || !sqlIdentStart(s[0]) || s[0] >= 0x80 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !sqlIdentPart(s[i]) || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// expr writes an expression, parenthesized when its precedence is below
// the context's.
func (f *sqlFormatter) expr(e any, ctx int) {
	m, ok := e.(map[string]any)
	if !ok {
		f.bad = true
		return
	}
	if c, ok := m["colname"]; ok {
		name, ok := c.(string)
		if !ok {
			f.bad = true
			return
		}
		f.name(name)
		return
	}
	if _, ok := m["valtype"]; ok {
		f.literal(m)
		return
	}
	params, _ := m["params"].([]any)
	if _, ok := m["func"]; ok {
		f.function(m, params)
		return
	}
	op, ok := m["operator"].(string)
	if !ok {
		f.bad = true
		return
	}
	f.operator(sqlASCIILower(op), params, ctx)
}

func (f *sqlFormatter) paren(need bool, body func()) {
	if need {
		f.str("(")
	}
	body()
	if need {
		f.str(")")
	}
}

// operand is the context of the tested value of a comparison-level
// operator: comparisons do not chain, so (a = b) = c keeps its
// parentheses.
const operand = sqlPrecCmp + 1

func (f *sqlFormatter) operator(op string, params []any, ctx int) {
	switch {
	case op == "not" && len(params) == 1:
		f.paren(sqlPrecNot < ctx, func() {
			f.str("not ")
			f.expr(params[0], sqlPrecNot)
		})
	case op == "-" && len(params) == 1:
		f.paren(sqlPrecUnary < ctx, func() {
			// An operand that itself starts with "-" gets parentheses,
			// since "--" would begin a comment.
			var inner sqlFormatter
			inner.expr(params[0], sqlPrecUnary)
			f.bad = f.bad || inner.bad
			f.str("-")
			f.paren(strings.HasPrefix(inner.b.String(), "-"), func() { f.str(inner.b.String()) })
		})
	case (op == "is null" || op == "is not null") && len(params) == 1:
		f.paren(sqlPrecCmp < ctx, func() {
			f.expr(params[0], operand)
			f.str(" " + op)
		})
	case (op == "in" || op == "not in") && len(params) >= 2:
		f.paren(sqlPrecCmp < ctx, func() {
			f.expr(params[0], operand)
			f.str(" " + op + " (")
			f.each(params[1:], ", ", func(x any) { f.expr(x, 0) })
			f.str(")")
		})
	case (op == "between" || op == "not between") && len(params) == 3:
		f.paren(sqlPrecCmp < ctx, func() {
			f.expr(params[0], operand)
			f.str(" " + op + " ")
			f.expr(params[1], operand)
			f.str(" and ")
			f.expr(params[2], operand)
		})
	case sqlPrec(op) > 0 && len(params) == 2:
		prec := sqlPrec(op)
		left := prec
		if prec == sqlPrecCmp {
			left = operand
		}
		f.paren(prec < ctx, func() {
			f.expr(params[0], left)
			f.str(" " + op + " ")
			// The right operand binds one level tighter: a - (b - c) keeps
			// its parentheses, a - b - c does not gain any.
			f.expr(params[1], prec+1)
		})
	default:
		f.bad = true
	}
}

func (f *sqlFormatter) function(m map[string]any, params []any) {
	name, ok := m["func"].(string)
	if !ok || !sqlBareWord(name) {
		f.bad = true
		return
	}
	f.str(sqlASCIILower(name) + "(")
	if m["distinct"] == true {
		f.str("distinct ")
	}
	f.each(params, ", ", func(x any) { f.expr(x, 0) })
	f.str(")")
}

// sqlBareWord reports a name parse_sql reads as a function name: an
// unquoted identifier that is not a keyword.
func sqlBareWord(s string) bool {
	if s == "" || !sqlIdentStart(s[0]) || sqlReserved[strings.ToUpper(s)] {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !sqlIdentPart(s[i]) {
			return false
		}
	}
	return true
}

// literal writes a literal node; a number's text must read back as one
// number token, so a bag made by hand cannot inject SQL.
func (f *sqlFormatter) literal(m map[string]any) {
	vt, _ := m["valtype"].(string)
	if vt == "null" {
		f.str("null")
		return
	}
	v := m["value"]
	switch vt {
	case "integer", "float":
		var txt string
		switch x := v.(type) {
		case string:
			txt = x
		case int64:
			txt = strconv.FormatInt(x, 10)
		case float64:
			// A whole real keeps a ".0" so that it parses back as a real.
			txt = FormatFloat(x)
			if !strings.ContainsAny(txt, ".eEIN") {
				txt += ".0"
			}
		}
		toks, err := sqlLex(strings.TrimPrefix(txt, "-"))
		if err != nil || len(toks) != 2 || toks[0].kind != sqlNumber {
			f.bad = true
			return
		}
		if _, err := strconv.ParseFloat(txt, 64); err != nil {
			f.bad = true
			return
		}
		f.str(txt)
	case "string":
		s, ok := v.(string)
		if !ok {
			f.bad = true
			return
		}
		f.str("'" + strings.ReplaceAll(s, "'", "''") + "'")
	case "boolean":
		switch v {
		case true, "true":
			f.str("true")
		case false, "false":
			f.str("false")
		default:
			f.bad = true
		}
	default:
		f.bad = true
	}
}
