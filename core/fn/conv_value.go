package fn

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aplite/aplite/vector"
)

// The To* getters convert one row to a Go value by APL's conversion rules.
// They share one shape (Getter) so row loops can take them as arguments;
// each returns false for a null row and for a value that does not
// convert, which APL reports as null rather than as an error.

// ToString returns the string form of row i: strings as they are, numbers
// in their shortest form, datetimes as RFC 3339 in UTC, timespans as Go
// durations and dynamic values as compact JSON (a dynamic string is not
// quoted).
func ToString(v *vector.Vector, i int) (string, bool) {
	if v.IsNull(i) {
		return "", false
	}
	switch v.Type {
	case vector.String:
		return v.Str(i), true
	case vector.Int:
		return strconv.FormatInt(v.Int(i), 10), true
	case vector.Float:
		return FormatFloat(v.Float(i)), true
	case vector.Bool:
		return strconv.FormatBool(v.Bool(i)), true
	case vector.DateTime:
		return FormatTime(v.Int(i)), true
	case vector.TimeSpan:
		return FormatDuration(v.Int(i)), true
	case vector.Dynamic:
		return DynString(v.Dyn(i))
	}
	return "", false
}

// DynString is ToString for one dynamic value.
func DynString(x any) (string, bool) {
	switch t := x.(type) {
	case nil:
		return "", false
	case string:
		return t, true
	case time.Time:
		return FormatTime(t.UnixNano()), true
	case time.Duration:
		return FormatDuration(int64(t)), true
	case float64:
		return FormatFloat(t), true
	}
	return string(AppendJSON(nil, x)), true
}

// FormatFloat renders a real the way APL prints it: the shortest decimal
// that reads back to the same value, without an exponent between 1e-6 and
// 1e21 (the JSON convention), NaN and ±Infinity spelled out.
func FormatFloat(f float64) string { return string(appendFloat(nil, f)) }

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Go writes 1e-07; the JSON convention is 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// FormatTime renders ns since the epoch as RFC 3339 in UTC with as many
// fractional digits as needed: 2024-01-02T03:04:05Z.
func FormatTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// FormatDuration renders a timespan as a Go duration ("1h30m0s", "1.5s"),
// the form Axiom's own results use.
func FormatDuration(ns int64) string { return time.Duration(ns).String() }

// ToFloat returns row i as a real. Bools are 1 or 0; datetimes and
// timespans are their nanoseconds; strings are parsed.
func ToFloat(v *vector.Vector, i int) (float64, bool) {
	if v.IsNull(i) {
		return 0, false
	}
	switch v.Type {
	case vector.Float:
		return v.Float(i), true
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return float64(v.Int(i)), true
	case vector.Bool:
		return b2f(v.Bool(i)), true
	case vector.String:
		return ParseFloat(v.Str(i))
	case vector.Dynamic:
		return DynFloat(v.Dyn(i))
	}
	return 0, false
}

// DynFloat is ToFloat for one dynamic value.
func DynFloat(x any) (float64, bool) {
	switch t := x.(type) {
	case float64:
		return t, true
	case int64:
		return float64(t), true
	case int:
		return float64(t), true
	case bool:
		return b2f(t), true
	case string:
		return ParseFloat(t)
	case time.Time:
		return float64(t.UnixNano()), true
	case time.Duration:
		return float64(t), true
	}
	return 0, false
}

// ParseFloat parses a real, accepting surrounding spaces, "nan" and
// "inf"/"infinity" in any case, and hex integers.
func ParseFloat(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, true
	}
	if n, ok := ParseInt(s); ok {
		return float64(n), true
	}
	return 0, false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ToInt returns row i as a long. Reals are truncated toward zero (NaN and
// out-of-range values do not convert); bools are 1 or 0; datetimes and
// timespans are their nanoseconds; strings are parsed as integers, or as
// reals and truncated.
func ToInt(v *vector.Vector, i int) (int64, bool) {
	if v.IsNull(i) {
		return 0, false
	}
	switch v.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return v.Int(i), true
	case vector.Float:
		return FloatToInt(v.Float(i))
	case vector.Bool:
		if v.Bool(i) {
			return 1, true
		}
		return 0, true
	case vector.String:
		return parseIntOrFloat(v.Str(i))
	case vector.Dynamic:
		return DynInt(v.Dyn(i))
	}
	return 0, false
}

// DynInt is ToInt for one dynamic value.
func DynInt(x any) (int64, bool) {
	switch t := x.(type) {
	case int64:
		return t, true
	case int:
		return int64(t), true
	case float64:
		return FloatToInt(t)
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case string:
		return parseIntOrFloat(t)
	case time.Time:
		return t.UnixNano(), true
	case time.Duration:
		return int64(t), true
	}
	return 0, false
}

// FloatToInt truncates f toward zero, failing for NaN and values outside
// the long range.
func FloatToInt(f float64) (int64, bool) {
	if math.IsNaN(f) || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return 0, false
	}
	return int64(f), true
}

// ParseInt parses a decimal or 0x-prefixed hex long, allowing surrounding
// spaces and a leading sign.
func ParseInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	neg := strings.HasPrefix(s, "-")
	h := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if len(h) > 2 && (h[:2] == "0x" || h[:2] == "0X") {
		if u, err := strconv.ParseUint(h[2:], 16, 64); err == nil {
			if neg {
				return -int64(u), true
			}
			return int64(u), true
		}
	}
	return 0, false
}

func parseIntOrFloat(s string) (int64, bool) {
	if n, ok := ParseInt(s); ok {
		return n, true
	}
	if f, ok := ParseFloat(s); ok {
		return FloatToInt(f)
	}
	return 0, false
}

// ToBool returns row i as a bool: numbers are true when non-zero, strings
// "true"/"false" (any case) and "1"/"0" convert, other strings do not.
func ToBool(v *vector.Vector, i int) (bool, bool) {
	if v.IsNull(i) {
		return false, false
	}
	switch v.Type {
	case vector.Bool:
		return v.Bool(i), true
	case vector.Int:
		return v.Int(i) != 0, true
	case vector.Float:
		f := v.Float(i)
		return f != 0, !math.IsNaN(f)
	case vector.String:
		return ParseBool(v.Str(i))
	case vector.Dynamic:
		return DynBool(v.Dyn(i))
	}
	return false, false
}

// DynBool is ToBool for one dynamic value.
func DynBool(x any) (bool, bool) {
	switch t := x.(type) {
	case bool:
		return t, true
	case int64:
		return t != 0, true
	case int:
		return t != 0, true
	case float64:
		return t != 0, !math.IsNaN(t)
	case string:
		return ParseBool(t)
	}
	return false, false
}

// ParseBool parses "true"/"false" in any case and "1"/"0".
func ParseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// ToTime returns row i as a datetime in ns since the epoch. Strings are
// parsed (ParseTime); numbers do not convert (use the unixtime_*
// functions), except a dynamic holding a time.
func ToTime(v *vector.Vector, i int) (int64, bool) {
	if v.IsNull(i) {
		return 0, false
	}
	switch v.Type {
	case vector.DateTime:
		return v.Int(i), true
	case vector.String:
		return ParseTime(v.Str(i))
	case vector.Dynamic:
		return DynTime(v.Dyn(i))
	}
	return 0, false
}

// DynTime is ToTime for one dynamic value.
func DynTime(x any) (int64, bool) {
	switch t := x.(type) {
	case time.Time:
		return t.UnixNano(), true
	case string:
		return ParseTime(t)
	}
	return 0, false
}

// ToDuration returns row i as a timespan in ns. Numbers are nanoseconds;
// strings are parsed (ParseDuration).
func ToDuration(v *vector.Vector, i int) (int64, bool) {
	if v.IsNull(i) {
		return 0, false
	}
	switch v.Type {
	case vector.TimeSpan, vector.Int:
		return v.Int(i), true
	case vector.Float:
		return FloatToInt(v.Float(i))
	case vector.String:
		return ParseDuration(v.Str(i))
	case vector.Dynamic:
		return DynDuration(v.Dyn(i))
	}
	return 0, false
}

// DynDuration is ToDuration for one dynamic value.
func DynDuration(x any) (int64, bool) {
	switch t := x.(type) {
	case time.Duration:
		return int64(t), true
	case int64:
		return t, true
	case int:
		return int64(t), true
	case float64:
		return FloatToInt(t)
	case string:
		return ParseDuration(t)
	}
	return 0, false
}

// ToDynamic returns row i as a dynamic value: nil, bool, int64, float64,
// string, time.Time, time.Duration, []any or map[string]any.
func ToDynamic(v *vector.Vector, i int) (any, bool) {
	x := v.Value(i)
	return x, x != nil
}
