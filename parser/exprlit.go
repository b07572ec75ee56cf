package parser

import (
	"errors"
	"math"
	"strconv"
	"strings"

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

func tokSpan(t *lexer.Token) Span { return Span{posOf(t.Pos), tokEnd(t)} }

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
	if err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	lit.Sp = Span{posOf(name.Pos), p.end()}
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
		v, err := p.jsonValue()
		if err != nil {
			return err
		}
		lit.Kind, lit.Value = LitDynamic, v
	}
	return nil
}

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

// jsonValue parses the JSON-like body of dynamic(...): null, booleans,
// numbers (int64 or float64), strings, arrays and objects.
func (p *exprParser) jsonValue() (any, error) {
	t := p.peek()
	switch {
	case t.Type == tString:
		p.next()
		s, err := stringLit(t)
		if err != nil {
			return nil, err
		}
		return s.Value, nil
	case t.Type == tInt || t.Type == tReal || isOp(t, "-") || isOp(t, "+"):
		n, err := p.signedNumber("dynamic")
		if err != nil {
			return nil, err
		}
		return n.Value, nil
	case isWord(t, "null"):
		p.next()
		return nil, nil
	case isWord(t, "true"), isWord(t, "false"):
		p.next()
		return t.Value == "true", nil
	case isOp(t, "["):
		return p.jsonArray()
	case isOp(t, "{"):
		return p.jsonObject()
	}
	return nil, expected("a JSON value (null, true, false, number, string, [...] or {...})", t)
}

func (p *exprParser) jsonArray() (any, error) {
	p.next()
	arr := []any{}
	if isOp(p.peek(), "]") {
		p.next()
		return arr, nil
	}
	for {
		v, err := p.jsonValue()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		t := p.next()
		if isOp(t, "]") {
			return arr, nil
		}
		if !isOp(t, ",") {
			return nil, expected(`"," or "]" in a dynamic array`, t)
		}
	}
}

func (p *exprParser) jsonObject() (any, error) {
	p.next()
	obj := map[string]any{}
	if isOp(p.peek(), "}") {
		p.next()
		return obj, nil
	}
	for {
		k := p.next()
		if k.Type != tString {
			return nil, expected("a quoted key in a dynamic object", k)
		}
		key, msg := unquote(k.Value)
		if msg != "" {
			return nil, errAt(k, msg)
		}
		if t := p.next(); !isOp(t, ":") {
			return nil, expected(`":" after a key in a dynamic object`, t)
		}
		v, err := p.jsonValue()
		if err != nil {
			return nil, err
		}
		obj[key] = v
		t := p.next()
		if isOp(t, "}") {
			return obj, nil
		}
		if !isOp(t, ",") {
			return nil, expected(`"," or "}" in a dynamic object`, t)
		}
	}
}
