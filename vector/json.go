package vector

import (
	"encoding/json"
	"strconv"
	"strings"
)

// JSONNumbers turns the json.Number leaves of a value decoded with
// UseNumber into the numbers a Dynamic row holds: int64 when the number
// is written as an integer that fits, float64 otherwise. It rewrites maps
// and slices in place and returns the value. The engine, ingest's label
// header and the benchmark generator all decode JSON this way, so one
// number reads the same wherever it enters.
func JSONNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return i
			}
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = JSONNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = JSONNumbers(e)
		}
	}
	return v
}
