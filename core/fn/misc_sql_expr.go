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

// sqlPrec returns the precedence of a binary operator.
func sqlPrec(op string) int {
	switch op {
	case "OR":
		return sqlPrecOr
	case "AND":
		return sqlPrecAnd
	case "+", "-", "||":
		return sqlPrecAdd
	case "*", "/", "%":
		return sqlPrecMul
	}
	return sqlPrecCmp
}

func sqlBinary(op string, l, r any) map[string]any {
	return map[string]any{"type": "binary_expr", "operator": op, "left": l, "right": r}
}

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
		return map[string]any{"type": "unary_expr", "operator": "NOT", "expr": e}, err
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
		op := "IS"
		if p.acceptKW("NOT") {
			op = "IS NOT"
		}
		if !p.acceptKW("NULL") {
			return nil, errSQL
		}
		return sqlBinary(op, l, map[string]any{"type": "null"}), nil
	}
	not := p.acceptKW("NOT")
	switch {
	case p.acceptKW("LIKE"):
		r, err := p.addExpr()
		return sqlBinary(sqlNot(not, "LIKE"), l, r), err
	case p.acceptKW("IN"):
		r, err := p.inList()
		return sqlBinary(sqlNot(not, "IN"), l, r), err
	case p.acceptKW("BETWEEN"):
		return p.between(l, not)
	case not:
		return nil, errSQL
	}
	return l, nil
}

func sqlNot(not bool, op string) string {
	if not {
		return "NOT " + op
	}
	return op
}

func (p *sqlParser) inList() (any, error) {
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
	return map[string]any{"type": "expr_list", "value": items}, p.expectOp(")")
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
	return map[string]any{"type": "between", "expr": l, "low": low, "high": high, "not": not}, err
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
		if num, ok := e.(map[string]any); ok && num["type"] == "number" {
			switch v := num["value"].(type) {
			case int64:
				num["value"] = -v
			case float64:
				num["value"] = -v
			}
			return num, err
		}
		return map[string]any{"type": "unary_expr", "operator": "-", "expr": e}, err
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
		return map[string]any{"type": "string", "value": t.text}, nil
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
		return map[string]any{"type": "null"}, nil
	case p.acceptKW("TRUE"):
		return map[string]any{"type": "bool", "value": true}, nil
	case p.acceptKW("FALSE"):
		return map[string]any{"type": "bool", "value": false}, nil
	}
	if t.kind == sqlIdent && p.toks[p.pos+1].kind == sqlOp && p.toks[p.pos+1].text == "(" && !sqlReserved[strings.ToUpper(t.text)] {
		return p.function()
	}
	return p.columnRef()
}

func sqlNumberNode(text string) (any, error) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return map[string]any{"type": "number", "value": n}, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, errSQL
	}
	return map[string]any{"type": "number", "value": f}, nil
}

// function parses NAME([DISTINCT] args); window functions (OVER) are
// not supported.
func (p *sqlParser) function() (any, error) {
	name := strings.ToUpper(p.next().text)
	p.pos++ // (
	fn := map[string]any{"type": "function", "name": name, "args": []any{}}
	switch {
	case p.acceptOp("*"):
		// COUNT(*): the only place a bare * is an expression.
		fn["args"] = []any{map[string]any{"type": "star"}}
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
		fn["args"] = args
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
	return map[string]any{"type": "column_ref", "column": n}, nil
}
