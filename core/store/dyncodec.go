package store

import (
	"fmt"
	"slices"
	"time"
)

// Tags of the tagged binary encoding of dynamic values (FORMAT.md).
const (
	tagNull = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagArray
	tagMap
	tagDateTime
	tagTimeSpan
)

// maxDynDepth bounds nesting on decode so corrupt input cannot exhaust
// the stack.
const maxDynDepth = 512

// putDyn appends the tagged encoding of x. It accepts the value kinds a
// Vector's Dyns may hold (plus Go's other integer and float kinds, widened)
// and reports an error for anything else rather than coercing it.
func putDyn(b []byte, x any) ([]byte, error) {
	switch v := x.(type) {
	case nil:
		return append(b, tagNull), nil
	case bool:
		if v {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int64:
		return putVarint(append(b, tagInt), v), nil
	case int:
		return putVarint(append(b, tagInt), int64(v)), nil
	case int32:
		return putVarint(append(b, tagInt), int64(v)), nil
	case uint32:
		return putVarint(append(b, tagInt), int64(v)), nil
	case float64:
		return putF64(append(b, tagFloat), v), nil
	case float32:
		return putF64(append(b, tagFloat), float64(v)), nil
	case string:
		return putBytes(append(b, tagString), v), nil
	case time.Time:
		return putVarint(append(b, tagDateTime), v.UnixNano()), nil
	case time.Duration:
		return putVarint(append(b, tagTimeSpan), int64(v)), nil
	case []any:
		b = putUvarint(append(b, tagArray), uint64(len(v)))
		var err error
		for _, e := range v {
			if b, err = putDyn(b, e); err != nil {
				return b, err
			}
		}
		return b, nil
	case map[string]any:
		return putDynMap(b, v)
	}
	return b, fmt.Errorf("store: unsupported dynamic value of type %T", x)
}

// putDynMap writes keys in ascending order so equal maps encode equally.
func putDynMap(b []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = putUvarint(append(b, tagMap), uint64(len(keys)))
	var err error
	for _, k := range keys {
		b = putBytes(b, k)
		if b, err = putDyn(b, m[k]); err != nil {
			return b, err
		}
	}
	return b, nil
}

// dyn decodes one tagged value.
func (r *reader) dyn(depth int) any {
	if depth > maxDynDepth {
		r.fail("dynamic value nested too deeply")
		return nil
	}
	switch tag := r.u8(); tag {
	case tagNull:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return r.varint()
	case tagFloat:
		return r.f64()
	case tagString:
		return r.str()
	case tagDateTime:
		return time.Unix(0, r.varint()).UTC()
	case tagTimeSpan:
		return time.Duration(r.varint())
	case tagArray:
		n := r.count(1, "array")
		a := make([]any, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			a = append(a, r.dyn(depth+1))
		}
		return a
	case tagMap:
		n := r.count(2, "map")
		m := make(map[string]any, n)
		for i := 0; i < n && r.err == nil; i++ {
			k := r.str()
			m[k] = r.dyn(depth + 1)
		}
		return m
	default:
		if r.err == nil {
			r.pos-- // point at the tag
			r.fail(fmt.Sprintf("unknown dynamic tag %d", tag))
		}
		return nil
	}
}
