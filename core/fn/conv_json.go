package fn

import (
	"math"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the compact JSON form of a dynamic value to b. Object
// keys are sorted so equal values always print the same (dynamic_to_json
// is documented as canonical); non-finite reals print as null, as Axiom
// shows them; times and durations print as their string forms.
func AppendJSON(b []byte, x any) []byte {
	switch t := x.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case int64:
		return strconv.AppendInt(b, t, 10)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return append(b, "null"...)
		}
		return appendFloat(b, t)
	case string:
		return AppendJSONString(b, t)
	case time.Time:
		return AppendJSONString(b, FormatTime(t.UnixNano()))
	case time.Duration:
		return AppendJSONString(b, FormatDuration(int64(t)))
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSON(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, k)
			b = append(b, ':')
			b = AppendJSON(b, t[k])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal. Unlike
// encoding/json it leaves <, > and & alone (results are not HTML) and
// replaces invalid UTF-8 with U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
