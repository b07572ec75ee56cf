package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Value is a constant's value. It encodes exactly: integers as decimal
// strings (never through float64), reals with NaN, ±Inf and -0 spelled
// out, dynamic values tagged by their Go type (FORMAT.md, "Values").
// Which of these a scalar is comes from the node's type, so a scalar
// value carries no tag of its own.
type Value struct {
	V any
	// raw is the encoded value until check reads it by the node's type.
	raw json.RawMessage
}

// UnmarshalJSON keeps the bytes: which type they hold is the node's,
// known once the whole node is read.
func (v *Value) UnmarshalJSON(b []byte) error {
	v.raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the value; scalars untagged, dynamic values tagged.
func (v Value) MarshalJSON() ([]byte, error) {
	switch x := v.V.(type) {
	case bool:
		return json.Marshal(x)
	case int64:
		return json.Marshal(strconv.FormatInt(x, 10))
	case float64:
		return json.Marshal(formatFloat(x))
	case string:
		return json.Marshal(x)
	case time.Time:
		return json.Marshal(strconv.FormatInt(x.UnixNano(), 10))
	case time.Duration:
		return json.Marshal(strconv.FormatInt(int64(x), 10))
	case Dyn:
		return json.Marshal(tagDyn(x.V))
	}
	return nil, fmt.Errorf("plan: cannot encode a constant of Go type %T", v.V)
}

// Dyn wraps a dynamic value so it encodes tagged. Const nodes of type
// dynamic hold their value wrapped; ConstValue unwraps it.
type Dyn struct{ V any }

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// tagDyn turns a dynamic value into its tagged JSON form.
func tagDyn(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return map[string]any{"b": x}
	case int64:
		return map[string]any{"i": strconv.FormatInt(x, 10)}
	case int:
		return map[string]any{"i": strconv.Itoa(x)}
	case float64:
		return map[string]any{"f": formatFloat(x)}
	case string:
		return map[string]any{"s": x}
	case time.Time:
		return map[string]any{"d": strconv.FormatInt(x.UnixNano(), 10)}
	case time.Duration:
		return map[string]any{"ts": strconv.FormatInt(int64(x), 10)}
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = tagDyn(e)
		}
		return map[string]any{"a": a}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = tagDyn(e)
		}
		return map[string]any{"m": m}
	}
	// Unknown Go types in a dynamic value are read as their text, as the
	// engine prints them; none are produced by the parser or the registry.
	return map[string]any{"s": fmt.Sprint(v)}
}

// decodeScalar reads a scalar value of type t (vector.Type numbering)
// from its JSON form.
func decodeScalar(t uint8, raw json.RawMessage) (any, error) {
	switch t {
	case 1:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case 2, 5, 6:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, err
		}
		switch t {
		case 5:
			return time.Unix(0, n).UTC(), nil
		case 6:
			return time.Duration(n), nil
		}
		return n, nil
	case 3:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return strconv.ParseFloat(s, 64)
	case 4:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case 7:
		var tagged any
		if err := json.Unmarshal(raw, &tagged); err != nil {
			return nil, err
		}
		v, err := untagDyn(tagged)
		return Dyn{V: v}, err
	}
	return nil, unsupported("a constant of type %d", t)
}

// untagDyn reverses tagDyn.
func untagDyn(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, fmt.Errorf("plan: a dynamic value must be an object with one tag, got %v", v)
	}
	for tag, x := range m {
		switch tag {
		case "b":
			if b, ok := x.(bool); ok {
				return b, nil
			}
		case "s":
			if s, ok := x.(string); ok {
				return s, nil
			}
		case "i", "d", "ts":
			s, _ := x.(string)
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("plan: dynamic %s value: %w", tag, err)
			}
			switch tag {
			case "d":
				return time.Unix(0, n).UTC(), nil
			case "ts":
				return time.Duration(n), nil
			}
			return n, nil
		case "f":
			s, _ := x.(string)
			return strconv.ParseFloat(s, 64)
		case "a":
			items, ok := x.([]any)
			if !ok {
				break
			}
			out := make([]any, len(items))
			for i, it := range items {
				var err error
				if out[i], err = untagDyn(it); err != nil {
					return nil, err
				}
			}
			return out, nil
		case "m":
			props, ok := x.(map[string]any)
			if !ok {
				break
			}
			out := make(map[string]any, len(props))
			for k, p := range props {
				var err error
				if out[k], err = untagDyn(p); err != nil {
					return nil, err
				}
			}
			return out, nil
		default:
			return nil, unsupported("dynamic value tag %q", tag)
		}
		return nil, fmt.Errorf("plan: bad dynamic %s value %v", tag, x)
	}
	return nil, nil
}
