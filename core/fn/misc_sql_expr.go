package fn

// Expressions of parse_sql, by precedence from loosest to tightest: OR,
// AND, NOT, comparisons (= <> != < <= > >=, [NOT] LIKE, [NOT] IN,
// IS [NOT] NULL, [NOT] BETWEEN), + - ||, * / %, unary minus, primaries.
// sqlPrec gives format_sql the same table so it parenthesizes exactly
// where the tree needs it.

import (
	"strconv"
	"strings"
)

const (
	sqlPrecOr = iota + 1
	sqlPrecAnd
	sqlPrecNot
	sqlPrecCmp
	sqlPrecAdd
	sqlPrecMul
	sqlPrecUnary
	sqlPrecPrimary
)

// sqlPrec returns the precedence of a two-operand operator, or 0 for one
// parse_sql never produces.
func sqlPrec(op string) int {
	switch op {
	case "or":
		return sqlPrecOr
	case "and":
		return sqlPrecAnd
	case "+", "-", "||":
		return sqlPrecAdd
	case "*", "/", "%":
		return sqlPrecMul
	case "=", "<>", "!=", "<", "<=", ">", ">=", "like", "not like":
		return sqlPrecCmp
	}
	return 0
}

// sqlNode builds an operator node; operators are lower case, as the "or"
// in the example on Axiom's page.
func sqlNode(op string, params ...any) map[string]any {
	return map[string]any{"operator": op, "params": params}
}

func sqlBinary(op string, l, r any) map[string]any { return sqlNode(strings.ToLower(op), l, r) }

func (p *sqlParser) expr() (any, error) { return p.orExpr() }

func (p *sqlParser) orExpr() (any, error) {
	l, err := p.andExpr()
	for err == nil && p.acceptKW("OR") {
		var r any
		if r, err = p.andExpr(); err == nil {
			l = sqlBinary("OR", l, r)
		}
	}
	return l, err
}

func (p *sqlParser) andExpr() (any, error) {
	l, err := p.notExpr()
	for err == nil && p.acceptKW("AND") {
		var r any
		if r, err = p.notExpr(); err == nil {
			l = sqlBinary("AND", l, r)
		}
	}
	return l, err
}

func (p *sqlParser) notExpr() (any, error) {
	if p.acceptKW("NOT") {
		e, err := p.notExpr()
		return sqlNode("not", e), err
	}
	return p.cmpExpr()
}

func (p *sqlParser) cmpExpr() (any, error) {
	l, err := p.addExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == sqlOp {
		switch t.text {
		case "=", "<>", "!=", "<", "<=", ">", ">=":
			p.pos++
			r, err := p.addExpr()
			return sqlBinary(t.text, l, r), err
		}
	}
	if p.acceptKW("IS") {
		op := "is null"
		if p.acceptKW("NOT") {
			op = "is not null"
		}
		if !p.acceptKW("NULL") {
			return nil, errSQL
		}
		return sqlNode(op, l), nil
	}
	not := p.acceptKW("NOT")
	switch {
	case p.acceptKW("LIKE"):
		r, err := p.addExpr()
		return sqlNode(sqlNot(not, "like"), l, r), err
	case p.acceptKW("IN"):
		items, err := p.inList()
		return sqlNode(sqlNot(not, "in"), append([]any{l}, items...)...), err
	case p.acceptKW("BETWEEN"):
		return p.between(l, not)
	case not:
		return nil, errSQL
	}
	return l, nil
}

func sqlNot(not bool, op string) string {
	if not {
		return "not " + op
	}
	return op
}

func (p *sqlParser) inList() ([]any, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	if p.isKW("SELECT") {
		return nil, errSQL
	}
	items, err := p.list(p.expr)
	if err != nil {
		return nil, err
	}
	return items, p.expectOp(")")
}

func (p *sqlParser) between(l any, not bool) (any, error) {
	low, err := p.addExpr()
	if err != nil {
		return nil, err
	}
	if !p.acceptKW("AND") {
		return nil, errSQL
	}
	high, err := p.addExpr()
	return sqlNode(sqlNot(not, "between"), l, low, high), err
}

func (p *sqlParser) addExpr() (any, error) {
	return p.leftAssoc(p.mulExpr, "+", "-", "||")
}

func (p *sqlParser) mulExpr() (any, error) {
	return p.leftAssoc(p.unaryExpr, "*", "/", "%")
}

func (p *sqlParser) leftAssoc(operand func() (any, error), ops ...string) (any, error) {
	l, err := operand()
	for err == nil {
		t := p.peek()
		if t.kind != sqlOp || !sqlIn(t.text, ops) {
			break
		}
		p.pos++
		var r any
		if r, err = operand(); err == nil {
			l = sqlBinary(t.text, l, r)
		}
	}
	return l, err
}

func sqlIn(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

func (p *sqlParser) unaryExpr() (any, error) {
	if p.acceptOp("-") {
		e, err := p.unaryExpr()
		if num, ok := e.(map[string]any); ok && (num["valtype"] == "integer" || num["valtype"] == "float") {
			// A signed literal stays a literal, as the page's "1000" is one.
			txt := num["value"].(string)
			if rest, neg := strings.CutPrefix(txt, "-"); neg {
				num["value"] = rest
			} else {
				num["value"] = "-" + txt
			}
			return num, err
		}
		return sqlNode("-", e), err
	}
	p.acceptOp("+")
	return p.primary()
}

func (p *sqlParser) primary() (any, error) {
	t := p.peek()
	switch {
	case t.kind == sqlNumber:
		p.pos++
		return sqlNumberNode(t.text)
	case t.kind == sqlString:
		p.pos++
		return sqlLiteral(t.text, "string"), nil
	case t.kind == sqlOp && t.text == "(":
		p.pos++
		if p.isKW("SELECT") {
			return nil, errSQL
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		return e, p.expectOp(")")
	case p.acceptKW("NULL"):
		return map[string]any{"value": nil, "valtype": "null"}, nil
	case p.acceptKW("TRUE"):
		return sqlLiteral("true", "boolean"), nil
	case p.acceptKW("FALSE"):
		return sqlLiteral("false", "boolean"), nil
	}
	if t.kind == sqlIdent && p.toks[p.pos+1].kind == sqlOp && p.toks[p.pos+1].text == "(" && !sqlReserved[strings.ToUpper(t.text)] {
		return p.function()
	}
	return p.columnRef()
}

// sqlLiteral builds a literal node; Axiom's page gives the value as text
// ("1000") beside its type.
func sqlLiteral(value, valtype string) map[string]any {
	return map[string]any{"value": value, "valtype": valtype}
}

// sqlNumberNode keeps a number's text (integers without leading zeros)
// so that format_sql writes back the literal that was read.
func sqlNumberNode(text string) (any, error) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return sqlLiteral(strconv.FormatInt(n, 10), "integer"), nil
	}
	if _, err := strconv.ParseFloat(text, 64); err != nil {
		return nil, errSQL
	}
	return sqlLiteral(text, "float"), nil
}

// function parses NAME([DISTINCT] args); window functions (OVER) are
// not supported.
func (p *sqlParser) function() (any, error) {
	name := sqlASCIILower(p.next().text)
	p.pos++ // (
	fn := map[string]any{"func": name, "params": []any{}}
	switch {
	case p.acceptOp("*"):
		// COUNT(*): the only place a bare * is an expression.
		fn["params"] = []any{map[string]any{"colname": "*"}}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	case !p.acceptOp(")"):
		if p.acceptKW("DISTINCT") {
			fn["distinct"] = true
		}
		args, err := p.list(p.expr)
		if err != nil {
			return nil, err
		}
		fn["params"] = args
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if p.isKW("OVER") {
		return nil, errSQL
	}
	return fn, nil
}

// columnRef parses name(.name)* with an optional trailing .* (t.*).
func (p *sqlParser) columnRef() (any, error) {
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	for p.acceptOp(".") {
		if p.acceptOp("*") {
			n += ".*"
			break
		}
		part, err := p.name()
		if err != nil {
			return nil, err
		}
		n += "." + part
	}
	return map[string]any{"colname": n}, nil
}

// sqlASCIILower lower-cases ASCII letters only, so that a name keeps its
// bytes' identifier classes whatever Unicode case mapping would do.
func sqlASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
