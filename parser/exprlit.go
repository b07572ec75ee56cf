package parser

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/aplite/aplite/vector"
)

const boolType = vector.Bool

// literalTypes are the type names that form typed literals when called:
// long(11), real(nan), bool(null), dynamic([1, 2]).
var literalTypes = map[string]vector.Type{
	"bool": vector.Bool, "boolean": vector.Bool,
	"int": vector.Int, "long": vector.Int,
	"real": vector.Float, "double": vector.Float,
	"string": vector.String, "dynamic": vector.Dynamic,
}

func parseTypeName(name string) (vector.Type, bool) { return vector.ParseType(name) }

func posOf(p lexer.Position) Pos { return Pos{Offset: p.Offset, Line: p.Line, Col: p.Column} }

// tokEnd is the position just past a token. Tokens never span lines.
func tokEnd(t *lexer.Token) Pos {
	p := posOf(t.Pos)
	p.Offset += len(t.Value)
	p.Col += utf8.RuneCountInString(t.Value)
	return p
}

func tokSpan(t *lexer.Token) Span { return Span{Start: posOf(t.Pos), End: tokEnd(t)} }

// numberLit builds an int, real or timespan literal from a number token,
// folding a preceding sign so that -9223372036854775808 and a[-1] are
// plain literals.
func numberLit(sign, n *lexer.Token) (*Literal, error) {
	raw := n.Value
	sp := tokSpan(n)
	neg := false
	if sign != nil {
		raw = sign.Value + raw
		sp.Start = posOf(sign.Pos)
		neg = sign.Value == "-"
	}
	lit := &Literal{Sp: sp, Raw: raw}
	switch n.Type {
	case tInt:
		v, err := parseIntText(n.Value, neg)
		if err != nil {
			return nil, errAt(n, "integer literal "+quoteText(raw)+" does not fit in a long (64-bit)")
		}
		lit.Kind, lit.Type, lit.Value = LitInt, vector.Int, v
	case tReal:
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil, errAt(n, "real literal "+quoteText(raw)+" is out of range")
		}
		if neg {
			v = -v
		}
		lit.Kind, lit.Type, lit.Value = LitReal, vector.Float, v
	default:
		d, ok := parseTimespan(n.Value)
		if !ok {
			return nil, errAt(n, "timespan literal "+quoteText(raw)+" is out of range")
		}
		if neg {
			d = -d
		}
		lit.Kind, lit.Type, lit.Value = LitTimeSpan, vector.TimeSpan, d
	}
	return lit, nil
}

func parseIntText(s string, neg bool) (int64, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil || u > math.MaxInt64 && !(neg && u == 1<<63) {
			return 0, errors.New("overflow")
		}
		if neg {
			return -int64(u), nil
		}
		return int64(u), nil
	}
	if neg {
		return strconv.ParseInt("-"+s, 10, 64)
	}
	return strconv.ParseInt(s, 10, 64)
}

func stringLit(t *lexer.Token) (*Literal, error) {
	v, msg := unquote(t.Value)
	if msg != "" {
		return nil, errAt(t, msg)
	}
	return &Literal{Sp: tokSpan(t), Kind: LitString, Type: vector.String, Value: v, Raw: t.Value}, nil
}

// rawLit decodes datetime(...), timespan(...) and time(...) tokens.
func rawLit(t *lexer.Token) (*Literal, error) {
	word, body, _ := strings.Cut(t.Value, "(")
	word = strings.TrimSpace(word)
	body = strings.TrimSpace(body[:len(body)-1])
	typ := vector.TimeSpan
	if word == "datetime" {
		typ = vector.DateTime
	}
	lit := &Literal{Sp: tokSpan(t), Type: typ, Raw: t.Value}
	if body == "null" {
		lit.Kind = LitNull
		return lit, nil
	}
	if len(body) >= 2 && (body[0] == '"' || body[0] == '\'') && body[len(body)-1] == body[0] {
		s, msg := unquote(body)
		if msg != "" {
			return nil, errAt(t, msg)
		}
		body = s
	}
	if typ == vector.DateTime {
		v, ok := parseDateTime(body)
		if !ok {
			return nil, errAt(t, "bad datetime literal "+quoteText(body)+": want e.g. 2024-01-15T14:00:00Z, 2019-11-30 23:59:59.9 or 2015-12-31")
		}
		if v.Before(minDateTime) || v.After(maxDateTime) {
			return nil, errAt(t, "datetime literal "+quoteText(body)+" is outside the range of datetime, "+
				minDateTime.Format(time.RFC3339Nano)+" to "+maxDateTime.Format(time.RFC3339Nano))
		}
		lit.Kind, lit.Value = LitDateTime, v
		return lit, nil
	}
	v, ok := parseTimespanText(body)
	if !ok {
		return nil, errAt(t, "bad timespan literal "+quoteText(body)+": want e.g. 15s, 1.5h or 1.02:03:04")
	}
	lit.Kind, lit.Value = LitTimeSpan, v
	return lit, nil
}

// typedLiteral parses the parenthesised part of long(11), real(+inf),
// bool(null), string(null), dynamic({...}) after the type name.
func (p *exprParser) typedLiteral(name *lexer.Token, typ vector.Type) (Expr, error) {
	start := p.lex.RawCursor() - 1
	p.next() // (
	lit := &Literal{Type: typ}
	t := p.peek()
	var err error
	if isWord(t, "null") {
		p.next()
		lit.Kind = LitNull
	} else {
		err = p.typedValue(lit, name.Value, typ)
	}
	if d, ok := err.(*dynExprErr); ok {
		// dynamic([x, 1]) is pack_array(x, 1) (bag_pack for objects).
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return d.e, nil
	}
	if err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	lit.Sp = Span{Start: posOf(name.Pos), End: p.end()}
	var raw strings.Builder
	for _, tok := range p.lex.Range(start, p.lex.RawCursor()) {
		raw.WriteString(tok.Value)
	}
	lit.Raw = raw.String()
	return lit, nil
}

func (p *exprParser) typedValue(lit *Literal, name string, typ vector.Type) error {
	switch typ {
	case vector.Bool:
		t := p.next()
		switch t.Value {
		case "true", "TRUE", "True":
			lit.Kind, lit.Value = LitBool, true
		case "false", "FALSE", "False":
			lit.Kind, lit.Value = LitBool, false
		default:
			return expected("true, false or null in "+name+"(...)", t)
		}
	case vector.Int:
		n, err := p.signedNumber(name)
		if err != nil {
			return err
		}
		if n.Kind != LitInt {
			return errAt(p.last, "expected an integer in "+name+"(...), found "+quoteText(n.Raw))
		}
		lit.Kind, lit.Value = LitInt, n.Value
	case vector.Float:
		return p.realValue(lit, name)
	case vector.String:
		t := p.next()
		if t.Type != tString {
			return expected("a string or null in "+name+"(...)", t)
		}
		s, err := stringLit(t)
		if err != nil {
			return err
		}
		lit.Kind, lit.Value = LitString, s.Value
	default:
		v, err := p.dynValue()
		if err != nil {
			return err
		}
		if v.expr != nil {
			return &dynExprErr{asDynamic(v.expr)}
		}
		lit.Kind, lit.Value = LitDynamic, v.val
	}
	return nil
}

// asDynamic keeps dynamic(x) dynamic when its body is one computed value
// (dynamic(a) of a long column is a dynamic column, not a long one);
// arrays and bags are built dynamic already.
func asDynamic(e Expr) Expr {
	if c, ok := e.(*CallExpr); ok && (c.Name == "pack_array" || c.Name == "bag_pack") {
		return e
	}
	return &CallExpr{Sp: e.Span(), Name: "todynamic", Args: []Expr{e}}
}

// dynExprErr carries a dynamic(...) body that computes its value out of
// typedValue, whose callers expect a constant; typedLiteral unwraps it.
type dynExprErr struct{ e Expr }

func (d *dynExprErr) Error() string { return "dynamic(...) holds expressions" }

func (p *exprParser) realValue(lit *Literal, name string) error {
	var sign *lexer.Token
	if t := p.peek(); isOp(t, "-") || isOp(t, "+") {
		sign = p.next()
	}
	t := p.peek()
	lit.Kind = LitReal
	switch {
	case isWord(t, "nan") && sign == nil:
		p.next()
		lit.Value = math.NaN()
	case isWord(t, "inf"):
		p.next()
		lit.Value = math.Inf(1)
		if sign != nil && sign.Value == "-" {
			lit.Value = math.Inf(-1)
		}
	case t.Type == tInt || t.Type == tReal:
		p.next()
		n, err := numberLit(sign, t)
		if err != nil {
			return err
		}
		lit.Value = toFloat(n.Value)
	default:
		return expected("a number, nan, +inf, -inf or null in "+name+"(...)", t)
	}
	return nil
}

func toFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}

// signedNumber parses an optionally signed int or real token.
func (p *exprParser) signedNumber(ctx string) (*Literal, error) {
	var sign *lexer.Token
	if t := p.peek(); isOp(t, "-") || isOp(t, "+") {
		sign = p.next()
	}
	t := p.peek()
	if t.Type != tInt && t.Type != tReal {
		return nil, expected("a number in "+ctx+"(...)", t)
	}
	p.next()
	return numberLit(sign, t)
}

// dynPart is one value inside dynamic(...): a constant (val), or, when an
// element is an expression such as uri or 0.5*pi(), the expression that
// builds it (expr).
type dynPart struct {
	val  any
	expr Expr
}

// dynValue parses the body of dynamic(...): JSON-like constants (null,
// booleans, numbers, strings, arrays, objects) whose elements may also be
// expressions, as Axiom accepts in dynamic({'path': uri}) and
// dynamic([100ms]). A body that is all constants stays one constant.
func (p *exprParser) dynValue() (dynPart, error) {
	switch t := p.peek(); {
	case isOp(t, "["):
		return p.dynArray()
	case isOp(t, "{"):
		return p.dynObject()
	}
	e, err := p.expr()
	if err != nil {
		return dynPart{}, err
	}
	if v, ok := jsonConst(e); ok {
		return dynPart{val: v}, nil
	}
	return dynPart{expr: e}, nil
}

// jsonConst is the JSON value of a literal element, if it is one: null,
// a boolean, a number (also negated) or a string.
func jsonConst(e Expr) (any, bool) {
	if u, ok := e.(*UnaryExpr); ok {
		v, ok := jsonConst(u.X)
		switch n := v.(type) {
		case int64:
			if u.Op == "-" {
				return -n, ok
			}
			return n, ok
		case float64:
			if u.Op == "-" {
				return -n, ok
			}
			return n, ok
		}
		return nil, false
	}
	lit, ok := e.(*Literal)
	if !ok {
		return nil, false
	}
	switch lit.Kind {
	case LitNull, LitBool, LitInt, LitReal, LitString:
		return lit.Value, true
	}
	return nil, false
}

func (p *exprParser) dynArray() (dynPart, error) {
	open := p.next()
	var parts []dynPart
	if isOp(p.peek(), "]") {
		p.next()
		return dynPart{val: []any{}}, nil
	}
	for {
		v, err := p.dynValue()
		if err != nil {
			return dynPart{}, err
		}
		parts = append(parts, v)
		t := p.next()
		if isOp(t, "]") {
			break
		}
		if !isOp(t, ",") {
			return dynPart{}, expected(`"," or "]" in a dynamic array`, t)
		}
	}
	if !anyExpr(parts) {
		arr := make([]any, len(parts))
		for i, x := range parts {
			arr[i] = x.val
		}
		return dynPart{val: arr}, nil
	}
	call := &CallExpr{Sp: Span{Start: posOf(open.Pos), End: p.end()}, Name: "pack_array"}
	for _, x := range parts {
		call.Args = append(call.Args, x.asExpr(call.Sp))
	}
	return dynPart{expr: call}, nil
}

func (p *exprParser) dynObject() (dynPart, error) {
	open := p.next()
	var keys []string
	var parts []dynPart
	if isOp(p.peek(), "}") {
		p.next()
		return dynPart{val: map[string]any{}}, nil
	}
	for {
		k := p.next()
		if k.Type != tString {
			return dynPart{}, expected("a quoted key in a dynamic object", k)
		}
		key, msg := unquote(k.Value)
		if msg != "" {
			return dynPart{}, errAt(k, msg)
		}
		if t := p.next(); !isOp(t, ":") {
			return dynPart{}, expected(`":" after a key in a dynamic object`, t)
		}
		v, err := p.dynValue()
		if err != nil {
			return dynPart{}, err
		}
		keys, parts = append(keys, key), append(parts, v)
		t := p.next()
		if isOp(t, "}") {
			break
		}
		if !isOp(t, ",") {
			return dynPart{}, expected(`"," or "}" in a dynamic object`, t)
		}
	}
	if !anyExpr(parts) {
		obj := make(map[string]any, len(parts))
		for i, x := range parts {
			obj[keys[i]] = x.val
		}
		return dynPart{val: obj}, nil
	}
	// bag_pack keeps the last of repeated keys, as the constant form does.
	call := &CallExpr{Sp: Span{Start: posOf(open.Pos), End: p.end()}, Name: "bag_pack"}
	for i, x := range parts {
		call.Args = append(call.Args, &Literal{Sp: call.Sp, Kind: LitString, Type: vector.String, Value: keys[i], Raw: quoteText(keys[i])}, x.asExpr(call.Sp))
	}
	return dynPart{expr: call}, nil
}

func anyExpr(parts []dynPart) bool {
	for _, x := range parts {
		if x.expr != nil {
			return true
		}
	}
	return false
}

// asExpr is the part as an argument of pack_array or bag_pack: constants
// become dynamic literals, so nested arrays and objects stay whole.
func (x dynPart) asExpr(sp Span) Expr {
	if x.expr != nil {
		return x.expr
	}
	return &Literal{Sp: sp, Kind: LitDynamic, Type: vector.Dynamic, Value: x.val, Raw: "dynamic(...)"}
}
