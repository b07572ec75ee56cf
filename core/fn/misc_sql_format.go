package fn

// format_sql: the inverse of parse_sql. Keywords and function names come
// out upper case, names are quoted only when they need it, ORDER BY's
// default ASC is left out, and parentheses appear only where precedence
// requires them, so format_sql(parse_sql(q)) is a normalized q. A bag that
// is not a parse_sql model gives null.

import (
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

func evalFormatSQL(_ *Context, args []*vector.Vector, n int) (*vector.Vector, error) {
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
	if m["type"] != "select" {
		f.bad = true
		return
	}
	f.str("SELECT ")
	if m["distinct"] == true {
		f.str("DISTINCT ")
	}
	cols, ok := m["columns"].([]any)
	if !ok || len(cols) == 0 {
		f.bad = true
		return
	}
	f.each(cols, ", ", f.column)
	if from, ok := m["from"].(string); ok {
		f.str(" FROM ")
		f.name(from)
		f.alias(m["alias"], " ")
	}
	if joins, ok := m["joins"].([]any); ok {
		for _, j := range joins {
			f.join(j)
		}
	}
	f.clauses(m)
}

func (f *sqlFormatter) clauses(m map[string]any) {
	if w, ok := m["where"]; ok {
		f.str(" WHERE ")
		f.expr(w, 0)
	}
	if g, ok := m["groupby"].([]any); ok && len(g) > 0 {
		f.str(" GROUP BY ")
		f.each(g, ", ", func(e any) { f.expr(e, 0) })
	}
	if h, ok := m["having"]; ok {
		f.str(" HAVING ")
		f.expr(h, 0)
	}
	if o, ok := m["orderby"].([]any); ok && len(o) > 0 {
		f.str(" ORDER BY ")
		f.each(o, ", ", f.orderItem)
	}
	for _, k := range []string{"limit", "offset"} {
		if v, ok := m[k]; ok {
			n, isInt := DynInt(v)
			if !isInt {
				f.bad = true
				return
			}
			f.str(" " + strings.ToUpper(k) + " " + strconv.FormatInt(n, 10))
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
	m, ok := c.(map[string]any)
	if !ok {
		f.bad = true
		return
	}
	if name, ok := m["name"].(string); ok {
		f.name(name)
	} else if e, ok := m["expr"]; ok {
		f.expr(e, 0)
	} else {
		f.bad = true
	}
	f.alias(m["alias"], " AS ")
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

func (f *sqlFormatter) join(j any) {
	m, ok := j.(map[string]any)
	table, ok2 := m["table"].(string)
	kind, _ := m["type"].(string)
	if !ok || !ok2 {
		f.bad = true
		return
	}
	if kind == "" {
		kind = "INNER"
	}
	f.str(" " + strings.ToUpper(kind) + " JOIN ")
	f.name(table)
	f.alias(m["alias"], " ")
	if on, ok := m["on"]; ok {
		f.str(" ON ")
		f.expr(on, 0)
	}
}

func (f *sqlFormatter) orderItem(o any) {
	m, ok := o.(map[string]any)
	if !ok {
		f.bad = true
		return
	}
	if c, ok := m["column"].(string); ok {
		f.name(c)
	} else if e, ok := m["expr"]; ok {
		f.expr(e, 0)
	} else {
		f.bad = true
	}
	if d, _ := m["direction"].(string); strings.EqualFold(d, "DESC") {
		f.str(" DESC")
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
	switch m["type"] {
	case "binary_expr":
		f.binary(m, ctx)
	case "unary_expr":
		f.unary(m, ctx)
	case "between":
		f.paren(ctx > sqlPrecCmp, func() {
			f.expr(m["expr"], sqlPrecCmp+1)
			if m["not"] == true {
				f.str(" NOT")
			}
			f.str(" BETWEEN ")
			f.expr(m["low"], sqlPrecCmp+1)
			f.str(" AND ")
			f.expr(m["high"], sqlPrecCmp+1)
		})
	case "expr_list":
		items, _ := m["value"].([]any)
		f.str("(")
		f.each(items, ", ", func(x any) { f.expr(x, 0) })
		f.str(")")
	case "function":
		f.function(m)
	default:
		f.leaf(m)
	}
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

func (f *sqlFormatter) binary(m map[string]any, ctx int) {
	op, ok := m["operator"].(string)
	if !ok {
		f.bad = true
		return
	}
	op = strings.ToUpper(op)
	prec := sqlPrec(op)
	f.paren(prec < ctx, func() {
		f.expr(m["left"], prec)
		f.str(" " + op + " ")
		// The right operand binds one level tighter: a - (b - c) keeps
		// its parentheses, a - b - c does not gain any.
		f.expr(m["right"], prec+1)
	})
}

func (f *sqlFormatter) unary(m map[string]any, ctx int) {
	op, _ := m["operator"].(string)
	switch strings.ToUpper(op) {
	case "NOT":
		f.paren(sqlPrecNot < ctx, func() {
			f.str("NOT ")
			f.expr(m["expr"], sqlPrecNot)
		})
	case "-":
		f.paren(sqlPrecUnary < ctx, func() {
			// An operand that itself starts with "-" gets parentheses,
			// since "--" would begin a comment.
			var inner sqlFormatter
			inner.expr(m["expr"], sqlPrecUnary)
			f.bad = f.bad || inner.bad
			f.str("-")
			f.paren(strings.HasPrefix(inner.b.String(), "-"), func() { f.str(inner.b.String()) })
		})
	default:
		f.bad = true
	}
}

func (f *sqlFormatter) function(m map[string]any) {
	name, ok := m["name"].(string)
	if !ok {
		f.bad = true
		return
	}
	f.str(strings.ToUpper(name) + "(")
	if m["distinct"] == true {
		f.str("DISTINCT ")
	}
	args, _ := m["args"].([]any)
	f.each(args, ", ", func(x any) { f.expr(x, 0) })
	f.str(")")
}

func (f *sqlFormatter) leaf(m map[string]any) {
	switch m["type"] {
	case "column_ref":
		c, ok := m["column"].(string)
		if !ok {
			f.bad = true
			return
		}
		f.name(c)
	case "number":
		switch v := m["value"].(type) {
		case int64:
			f.str(strconv.FormatInt(v, 10))
		case float64:
			// A whole real keeps a ".0" so that it parses back as a real.
			txt := FormatFloat(v)
			if !strings.ContainsAny(txt, ".eEIN") {
				txt += ".0"
			}
			f.str(txt)
		default:
			f.bad = true
		}
	case "string":
		s, _ := m["value"].(string)
		f.str("'" + strings.ReplaceAll(s, "'", "''") + "'")
	case "bool":
		if m["value"] == true {
			f.str("TRUE")
		} else {
			f.str("FALSE")
		}
	case "null":
		f.str("NULL")
	case "star":
		f.str("*")
	default:
		f.bad = true
	}
}
