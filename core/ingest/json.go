package ingest

import (
	"fmt"
)

// event decodes the object at d.pos into the current event (begun by the
// caller). It returns only syntax errors; event failures go to d.fail.
func (d *decoder) event() error {
	_, err := d.object(-1, 1)
	return err
}

// object flattens the object at d.pos (depth is its nesting level, the
// event being 1) into fields under parent. It reports whether the object
// was empty.
func (d *decoder) object(parent int32, depth int) (empty bool, err error) {
	d.pos++ // '{'
	d.ws()
	if d.peek() == '}' {
		d.pos++
		return true, nil
	}
	for {
		if d.peek() != '"' {
			return false, d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" looking for beginning of object key string")
		}
		id := d.f.rawMatch(parent, d.prev, d.buf, d.pos)
		if id >= 0 {
			d.pos += len(d.f.nodes[id].key) + 2
		} else {
			key, err := d.str()
			if err != nil {
				return false, err
			}
			id = d.f.child(parent, d.prev, key)
		}
		d.prev = id
		if d.pos < len(d.buf) && d.buf[d.pos] == ':' {
			d.pos++ // the usual case, without a call
		} else if err := d.expect(':', "after object key"); err != nil {
			return false, err
		}
		d.ws()
		if err := d.value(id, depth); err != nil {
			return false, err
		}
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			return false, nil
		default:
			return false, d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after object key:value pair")
		}
	}
}

// value decodes or skips the value at d.pos for node id. The string a
// projected decode skips, most of its values, is stepped over here,
// without the calls through member and skipMember (a tenth of the time
// of a decode that keeps one field of twenty).
func (d *decoder) value(id int32, depth int) error {
	if !d.f.nodes[id].skip {
		return d.member(id, depth)
	}
	buf, i := d.buf, d.pos
	if i < len(buf) && buf[i] == '"' {
		if j := stop(buf, i+1); j < len(buf) && buf[j] == '"' {
			d.pos = j + 1
			return nil
		}
		_, err := d.str() // its errors, as skipStr
		return err
	}
	return d.skipMember()
}

// member decodes the value at d.pos into node id; the value's container is
// at depth.
func (d *decoder) member(id int32, depth int) error {
	if d.f.nodes[id].skip {
		return d.skipMember()
	}
	switch c := d.peek(); c {
	case '"':
		if c := d.f.nodes[id].cache; c != nil && !c.off {
			if s, ok := c.raw(d.buf, d.pos+1); ok {
				d.pos += len(s) + 2
				d.setCached(id, s)
				return nil
			}
		}
		s, err := d.str()
		if err != nil {
			return err
		}
		d.setString(id, s)
	case '{':
		n := &d.f.nodes[id]
		if depth+1 > d.o.MaxDepth {
			d.fail(fmt.Sprintf("field %s nests deeper than the limit of %d levels", clip(n.path), d.o.MaxDepth))
			return d.skip()
		}
		if n.isMap {
			v, err := d.anyValue(depth + 1)
			if err != nil {
				return err
			}
			d.setDynamic(id, v)
			return nil
		}
		if n.isTime {
			d.fail(fmt.Sprintf("cannot use %s value of type object as a time", n.path))
		}
		// The shape chain runs through the object's keys, so the key after
		// the object is predicted from its last member.
		empty, err := d.object(id, depth+1)
		if err != nil {
			return err
		}
		if empty {
			d.setDynamic(id, map[string]any{})
		}
	case '[':
		if depth+1 > d.o.MaxDepth {
			d.fail(fmt.Sprintf("field %s nests deeper than the limit of %d levels", clip(d.f.nodes[id].path), d.o.MaxDepth))
			return d.skip()
		}
		v, err := d.anyValue(depth + 1)
		if err != nil {
			return err
		}
		d.setDynamic(id, v)
	case 't':
		if err := d.literal("true"); err != nil {
			return err
		}
		d.setBool(id, true)
	case 'f':
		if err := d.literal("false"); err != nil {
			return err
		}
		d.setBool(id, false)
	case 'n':
		if err := d.literal("null"); err != nil {
			return err
		}
		d.setNull(id)
	default:
		iv, fv, isInt, err := d.number()
		if err != nil {
			return err
		}
		if isInt {
			d.setInt(id, iv)
		} else {
			d.setFloat(id, fv)
		}
	}
	return nil
}

// anyValue decodes the value at d.pos as a dynamic value: nil, bool,
// int64, float64, string, []any or map[string]any. depth is the level of
// the value itself; deeper than MaxDepth fails the event (and yields nil).
func (d *decoder) anyValue(depth int) (any, error) {
	switch c := d.peek(); c {
	case '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.a.str(s), nil
	case '{', '[':
		if depth > d.o.MaxDepth {
			d.fail(fmt.Sprintf("a value nests deeper than the limit of %d levels", d.o.MaxDepth))
			return nil, d.skip()
		}
		if c == '[' {
			return d.anyArray(depth)
		}
		return d.anyObject(depth)
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	}
	iv, fv, isInt, err := d.number()
	if err != nil {
		return nil, err
	}
	if isInt {
		return iv, nil
	}
	return fv, nil
}

func (d *decoder) anyArray(depth int) (any, error) {
	d.pos++ // '['
	d.ws()
	out := []any{}
	if d.peek() == ']' {
		d.pos++
		return out, nil
	}
	for {
		v, err := d.anyValue(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
			d.ws()
		case ']':
			d.pos++
			return out, nil
		default:
			return nil, d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after array element")
		}
	}
}

func (d *decoder) anyObject(depth int) (any, error) {
	d.pos++ // '{'
	d.ws()
	out := map[string]any{}
	if d.peek() == '}' {
		d.pos++
		return out, nil
	}
	for {
		if d.peek() != '"' {
			return nil, d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" looking for beginning of object key string")
		}
		kb, err := d.str()
		if err != nil {
			return nil, err
		}
		k := d.a.str(kb)
		if err := d.expect(':', "after object key"); err != nil {
			return nil, err
		}
		d.ws()
		v, err := d.anyValue(depth + 1)
		if err != nil {
			return nil, err
		}
		out[k] = v
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			return out, nil
		default:
			return nil, d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after object key:value pair")
		}
	}
}

// skip validates and skips the value at d.pos without recursion, so even
// absurdly deep input cannot exhaust the stack.
func (d *decoder) skip() error {
	stack := d.stack[:0]
	defer func() { d.stack = stack }()
	for {
		// A value.
		d.ws()
		switch c := d.peek(); c {
		case '{', '[':
			d.pos++
			d.ws()
			if d.peek() == c+2 { // '}' and ']' are '{'+2 and '['+2
				d.pos++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if err := d.key(); err != nil {
					return err
				}
			}
			continue
		case '"':
			// skipStr, inlined by hand: one call less on the commonest value.
			if j := stop(d.buf, d.pos+1); j < len(d.buf) && d.buf[j] == '"' {
				d.pos = j + 1
			} else if _, err := d.str(); err != nil {
				return err
			}
		case 't':
			if err := d.literal("true"); err != nil {
				return err
			}
		case 'f':
			if err := d.literal("false"); err != nil {
				return err
			}
		case 'n':
			if err := d.literal("null"); err != nil {
				return err
			}
		default:
			if err := d.skipNumber(); err != nil {
				return err
			}
		}
		// After a value: close containers until one continues.
		for {
			if len(stack) == 0 {
				return nil
			}
			d.ws()
			top := stack[len(stack)-1]
			c := d.peek()
			if c == top+2 {
				d.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			if c != ',' {
				return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" after "+map[byte]string{'{': "object key:value pair", '[': "array element"}[top])
			}
			d.pos++
			if top == '{' {
				if err := d.key(); err != nil {
					return err
				}
			}
			break
		}
	}
}

// key skips an object key and its colon.
func (d *decoder) key() error {
	d.ws()
	buf, i := d.buf, d.pos
	if i >= len(buf) || buf[i] != '"' {
		return d.errAt(d.pos, "invalid "+describe(d.buf, d.pos)+" looking for beginning of object key string")
	}
	if j := stop(buf, i+1); j < len(buf) && buf[j] == '"' {
		if j+1 < len(buf) && buf[j+1] == ':' { // compact JSON
			d.pos = j + 2
			return nil
		}
		d.pos = j + 1
	} else if _, err := d.str(); err != nil { // its errors, as skipStr
		return err
	}
	return d.expect(':', "after object key")
}

// valueKind names the JSON type of the value starting with c.
func valueKind(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
