package output

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/aplite/aplite/vector"
)

// Cell renders one cell of a vector as the API does: datetimes as RFC 3339
// UTC strings, timespans as Go duration strings, non-finite floats as
// null, dynamic values as JSON-ready Go values (see JSONValue).
func Cell(v *vector.Vector, i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.Type {
	case vector.Float:
		f := v.Float(i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case vector.Int:
		return v.Int(i)
	case vector.Bool:
		return v.Bool(i)
	case vector.String:
		return v.Str(i)
	case vector.DateTime:
		return FormatTime(v.Int(i))
	case vector.TimeSpan:
		return FormatTimespan(time.Duration(v.Int(i)))
	case vector.Dynamic:
		return JSONValue(v.Dyn(i))
	}
	return nil
}

// FormatTime renders ns since the epoch as RFC 3339 UTC with up to 9
// fractional digits.
func FormatTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

// FormatTimespan renders a timespan as a Go duration string, the form the
// CLI contract and the service use in JSON results.
func FormatTimespan(d time.Duration) string { return d.String() }

// JSONValue converts a boxed value into something a JSON encoder renders
// as the API does: datetimes as RFC 3339 UTC strings, timespans as Go
// duration strings, non-finite floats as null, recursively through arrays
// and bags.
func JSONValue(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case time.Duration:
		return FormatTimespan(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSONValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = JSONValue(e)
		}
		return out
	}
	return v
}

// Text renders a boxed or JSON-ready value as APL's tostring() does:
// numbers in their shortest exact form, datetimes as RFC 3339 UTC,
// timespans as Go durations, arrays and bags as JSON.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case time.Duration:
		return FormatTimespan(x)
	}
	b, _ := json.Marshal(JSONValue(v))
	return string(b)
}
