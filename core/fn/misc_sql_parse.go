package fn

// parse_sql: a recursive-descent parser for simple SELECT statements,
// producing the bag shape of the examples on Axiom's page:
//
//	{"statement":"select", "distinct":true?,
//	 "columns":[{"colname":"id"}, {<expression>, "alias":"n"}],
//	 "from":[{"table":"logs","alias":"l"?}, {"table":"u","join":"left","on":{...}}?],
//	 "where":{...}?, "group":[...]?, "having":{...}?,
//	 "order":[{"direction":"desc","expr":{...}}]?, "limit":10?, "offset":5?}
//
// Expressions are bags: {"colname":"x"} for a column (and "*"), {"value":
// "1000", "valtype":"integer"} for a literal (the value is its text;
// valtype integer, float, string, boolean or null), {"operator":">",
// "params":[l, r]} for an operator and {"func":"count", "params":[...],
// "distinct":true?} for a call. Operators are lower case like the page's
// "or": binary = <> != < <= > >= + - || * / % and or like "not like";
// one-operand not, - (negation), "is null", "is not null"; "in" and
// "not in" with the tested value then the list items; "between" and
// "not between" with the value, low and high. The page shows only
// columns, from, where, order and statement; the other keys follow the
// same style and are aplite's. As the page says, CTEs, subqueries, window
// functions, CASE and special joins are not supported; such statements
// give null.

import (
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "parse_sql", Family: "sql", MinArgs: 1, MaxArgs: 1,
		Result: Sig("parse_sql", vector.Dynamic, KString), Eval: evalParseSQL,
		Doc: "Parses a simple SQL SELECT statement into a bag of its clauses (statement, columns, from, where, order as on Axiom's page); null when it cannot."})
	Register(&Func{Name: "format_sql", Family: "sql", MinArgs: 1, MaxArgs: 1,
		Result: Sig("format_sql", vector.String, KDyn), Eval: evalFormatSQL,
		Doc: "Turns a bag made by parse_sql back into a normalized SQL statement with lower-case keywords, as on Axiom's page."})
}

func evalParseSQL(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return MapStrings(vector.Dynamic, args[0], n, func(s string) (any, bool) {
		m, err := sqlParse(s)
		return m, err == nil
	}), nil
}

// sqlReserved are the keywords that cannot be bare names or aliases.
var sqlReserved = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`SELECT FROM WHERE GROUP BY HAVING ORDER LIMIT OFFSET AND OR NOT AS ON
		JOIN INNER LEFT RIGHT FULL OUTER CROSS NATURAL IN IS NULL LIKE BETWEEN DISTINCT ASC DESC UNION
		CASE WHEN THEN ELSE END TRUE FALSE WITH OVER`) {
		sqlReserved[k] = true
	}
}

type sqlParser struct {
	toks []sqlTok
	pos  int
}

func sqlParse(s string) (map[string]any, error) {
	toks, err := sqlLex(s)
	if err != nil {
		return nil, err
	}
	p := &sqlParser{toks: toks}
	stmt, err := p.selectStmt()
	if err != nil {
		return nil, err
	}
	p.acceptOp(";")
	if p.peek().kind != sqlEOF {
		return nil, errSQL
	}
	return stmt, nil
}

func (p *sqlParser) peek() sqlTok { return p.toks[p.pos] }

func (p *sqlParser) next() sqlTok {
	t := p.toks[p.pos]
	if t.kind != sqlEOF {
		p.pos++
	}
	return t
}

// isKW reports whether the next tokens are the keywords words.
func (p *sqlParser) isKW(words ...string) bool {
	for k, w := range words {
		t := p.toks[min(p.pos+k, len(p.toks)-1)]
		if t.kind != sqlIdent || !strings.EqualFold(t.text, w) {
			return false
		}
	}
	return true
}

func (p *sqlParser) acceptKW(words ...string) bool {
	if !p.isKW(words...) {
		return false
	}
	p.pos += len(words)
	return true
}

func (p *sqlParser) acceptOp(op string) bool {
	if t := p.peek(); t.kind == sqlOp && t.text == op {
		p.pos++
		return true
	}
	return false
}

func (p *sqlParser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return errSQL
	}
	return nil
}

// name reads an identifier that is not a reserved keyword.
func (p *sqlParser) name() (string, error) {
	t := p.peek()
	if t.kind == sqlQuotedIdent || (t.kind == sqlIdent && !sqlReserved[strings.ToUpper(t.text)]) {
		p.pos++
		return t.text, nil
	}
	return "", errSQL
}

// dottedName reads name(.name)*, as in schema.table or t.column.
func (p *sqlParser) dottedName() (string, error) {
	n, err := p.name()
	for err == nil && p.acceptOp(".") {
		var part string
		if part, err = p.name(); err == nil {
			n += "." + part
		}
	}
	return n, err
}

// alias reads an optional [AS] alias.
func (p *sqlParser) alias() (string, bool, error) {
	if p.acceptKW("AS") {
		a, err := p.name()
		return a, true, err
	}
	if a, err := p.name(); err == nil {
		return a, true, nil
	}
	return "", false, nil
}

func (p *sqlParser) selectStmt() (map[string]any, error) {
	if !p.acceptKW("SELECT") {
		return nil, errSQL
	}
	out := map[string]any{"statement": "select"}
	if p.acceptKW("DISTINCT") {
		out["distinct"] = true
	}
	cols, err := p.list(p.selectItem)
	if err != nil {
		return nil, err
	}
	out["columns"] = cols
	if p.acceptKW("FROM") {
		if err := p.fromClause(out); err != nil {
			return nil, err
		}
	}
	return out, p.tailClauses(out)
}

func (p *sqlParser) list(item func() (any, error)) ([]any, error) {
	var out []any
	for {
		x, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *sqlParser) selectItem() (any, error) {
	if p.acceptOp("*") {
		return map[string]any{"colname": "*"}, nil
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	// Every expression node is a fresh bag, so the alias can sit in it.
	col := e.(map[string]any)
	a, has, err := p.alias()
	if has {
		col["alias"] = a
	}
	return col, err
}

func (p *sqlParser) fromClause(out map[string]any) error {
	table, err := p.dottedName()
	if err != nil {
		return err
	}
	first := map[string]any{"table": table}
	if a, has, err := p.alias(); err != nil {
		return err
	} else if has {
		first["alias"] = a
	}
	from := []any{first}
	for {
		kind := ""
		switch {
		case p.acceptKW("JOIN"), p.acceptKW("INNER", "JOIN"):
			kind = "inner"
		case p.acceptKW("LEFT", "JOIN"), p.acceptKW("LEFT", "OUTER", "JOIN"):
			kind = "left"
		case p.acceptKW("RIGHT", "JOIN"), p.acceptKW("RIGHT", "OUTER", "JOIN"):
			kind = "right"
		case p.acceptKW("FULL", "JOIN"), p.acceptKW("FULL", "OUTER", "JOIN"):
			kind = "full"
		}
		if kind == "" {
			break
		}
		j, err := p.joinTail(kind)
		if err != nil {
			return err
		}
		from = append(from, j)
	}
	out["from"] = from
	return nil
}

func (p *sqlParser) joinTail(kind string) (map[string]any, error) {
	table, err := p.dottedName()
	if err != nil {
		return nil, err
	}
	j := map[string]any{"join": kind, "table": table}
	a, has, err := p.alias()
	if err != nil {
		return nil, err
	}
	if has {
		j["alias"] = a
	}
	if !p.acceptKW("ON") {
		return nil, errSQL
	}
	if j["on"], err = p.expr(); err != nil {
		return nil, err
	}
	return j, nil
}

// tailClauses parses WHERE, GROUP BY, HAVING, ORDER BY and LIMIT/OFFSET.
func (p *sqlParser) tailClauses(out map[string]any) error {
	var err error
	if p.acceptKW("WHERE") {
		if out["where"], err = p.expr(); err != nil {
			return err
		}
	}
	if p.acceptKW("GROUP", "BY") {
		if out["group"], err = p.list(p.expr); err != nil {
			return err
		}
	}
	if p.acceptKW("HAVING") {
		if out["having"], err = p.expr(); err != nil {
			return err
		}
	}
	if p.acceptKW("ORDER", "BY") {
		if out["order"], err = p.list(p.orderItem); err != nil {
			return err
		}
	}
	if p.acceptKW("LIMIT") {
		return p.limit(out)
	}
	return nil
}

func (p *sqlParser) orderItem() (any, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	dir := "asc"
	if p.acceptKW("DESC") {
		dir = "desc"
	} else {
		p.acceptKW("ASC")
	}
	return map[string]any{"expr": e, "direction": dir}, nil
}

// limit reads LIMIT n [OFFSET m] or MySQL's LIMIT m, n.
func (p *sqlParser) limit(out map[string]any) error {
	a, err := p.intLiteral()
	if err != nil {
		return err
	}
	out["limit"] = a
	if p.acceptOp(",") {
		b, err := p.intLiteral()
		out["offset"], out["limit"] = a, b
		return err
	}
	if p.acceptKW("OFFSET") {
		out["offset"], err = p.intLiteral()
	}
	return err
}

func (p *sqlParser) intLiteral() (int64, error) {
	t := p.next()
	if t.kind != sqlNumber {
		return 0, errSQL
	}
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		return 0, errSQL
	}
	return n, nil
}
