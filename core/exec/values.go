package exec

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/vector"
)

// ConvertValue converts a boxed value (as vector.Vector.Value returns it)
// to the representation of type t, or nil when it has none. It is the
// slow path used when schemas are unified and for dynamic values.
func ConvertValue(v any, t vector.Type) any {
	if v == nil {
		return nil
	}
	switch t {
	case vector.Dynamic:
		return v
	case vector.Float:
		if f, ok := fn.DynFloat(v); ok {
			return f
		}
	case vector.Int:
		switch x := v.(type) {
		case int64:
			return x
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil
			}
			return int64(x)
		case bool:
			if x {
				return int64(1)
			}
			return int64(0)
		case string:
			if i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
				return i
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return int64(f)
			}
		}
	case vector.String:
		return ValueString(v)
	case vector.Bool:
		switch x := v.(type) {
		case bool:
			return x
		case int64:
			return x != 0
		case float64:
			return x != 0
		case string:
			switch strings.ToLower(x) {
			case "true":
				return true
			case "false":
				return false
			}
		}
	case vector.DateTime:
		switch x := v.(type) {
		case time.Time:
			return x
		case string:
			if tm, ok := parseDateTime(x); ok {
				return tm
			}
		case int64:
			return time.Unix(0, x).UTC()
		}
	case vector.TimeSpan:
		switch x := v.(type) {
		case time.Duration:
			return x
		case int64:
			return time.Duration(x)
		case string:
			if d, err := time.ParseDuration(x); err == nil {
				return d
			}
		}
	}
	return nil
}

// ValueString renders a boxed value as APL's tostring() does.
func ValueString(v any) string { return output.Text(v) }

// parseDateTime parses the datetime text forms APL accepts (naive times
// are UTC), with the same layouts as todatetime(), so an implicit cast and
// the explicit function agree.
func parseDateTime(s string) (time.Time, bool) {
	ns, ok := fn.ParseTime(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, ns).UTC(), true
}

// parseJSONValue parses JSON text into a dynamic value (integers as int64,
// other numbers as float64); nil when the text is not JSON.
func parseJSONValue(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return vector.JSONNumbers(v)
}

// SortedKeys returns a map's keys in order.
func SortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
