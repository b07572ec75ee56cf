package fn

import (
	"math"
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

// format_bytes and parse_bytes: byte counts as human-readable sizes.

func init() {
	Register(&Func{Name: "format_bytes", Family: famString, MinArgs: 1, MaxArgs: 4,
		Result: Sig("format_bytes", vector.String, KNum, KInt, KString, KInt),
		Eval:   evalFormatBytes,
		Doc:    "format_bytes(value[, precision[, units[, base]]]): a byte count as text such as \"1 KB\" (base 2 by default)."})
	Register(&Func{Name: "parse_bytes", Family: famString, MinArgs: 1, MaxArgs: 2,
		Result: Sig("parse_bytes", vector.Int, KString, KInt),
		Eval:   evalParseBytes,
		Doc:    "parse_bytes(text[, base]): the byte count in text such as \"1 KB\"; 0 when it does not parse."})
}

// byteUnits are the auto-selected unit labels, smallest first.
var byteUnits = []string{"Bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}

// byteUnitPower maps a unit name (lower case) to its power of the base;
// binary reports whether the name fixes the base to 2 (KiB, MiB, ...).
func byteUnitPower(u string) (power int, binary, ok bool) {
	u = strings.ToLower(strings.TrimSpace(u))
	switch u {
	case "", "b", "byte", "bytes":
		return 0, false, true
	}
	letters := "kmgtpezy"
	if len(u) >= 1 {
		if k := strings.IndexByte(letters, u[0]); k >= 0 {
			switch u[1:] {
			case "", "b":
				return k + 1, false, true
			case "ib":
				return k + 1, true, true
			}
		}
	}
	return 0, false, false
}

func evalFormatBytes(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		v, ok1 := ToFloat(args[0], i)
		prec, ok2 := optInt(args, 1, i, 0)
		units, ok3 := optStr(args, 2, i, "")
		base, ok4 := optInt(args, 3, i, 2)
		if !ok1 || !ok2 || !ok3 || !ok4 || (base != 2 && base != 10) || math.IsNaN(v) || math.IsInf(v, 0) {
			return "", false
		}
		return formatBytes(v, int(max(min(prec, 20), 0)), units, base), true
	}), nil
}

func formatBytes(v float64, prec int, units string, base int64) string {
	step := 1024.0
	if base == 10 {
		step = 1000
	}
	if units != "" {
		p, binary, ok := byteUnitPower(units)
		if ok {
			if binary {
				step = 1024
			}
			return strconv.FormatFloat(v/math.Pow(step, float64(p)), 'f', prec, 64) + " " + units
		}
	}
	p := 0
	for p < len(byteUnits)-1 && math.Abs(v) >= step {
		v /= step
		p++
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + byteUnits[p]
}

func evalParseBytes(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.Int, args, 0, n, func(s string, i int) (int64, bool) {
		base, ok := optInt(args, 1, i, 2)
		if !ok {
			return 0, false
		}
		return parseBytes(s, base), true
	}), nil
}

// parseBytes reads "<number> [unit]"; anything else is 0, as documented.
func parseBytes(s string, base int64) int64 {
	s = strings.TrimSpace(s)
	k := 0
	for k < len(s) && (s[k] == '.' || s[k] == '-' || s[k] == '+' || (s[k] >= '0' && s[k] <= '9')) {
		k++
	}
	num, err := strconv.ParseFloat(s[:k], 64)
	if err != nil {
		return 0
	}
	p, binary, ok := byteUnitPower(s[k:])
	if !ok {
		return 0
	}
	step := 1024.0
	if base == 10 && !binary {
		step = 1000
	}
	r, ok := FloatToInt(math.Round(num * math.Pow(step, float64(p))))
	if !ok {
		return 0
	}
	return r
}
