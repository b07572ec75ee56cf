package core

import (
	"encoding/json"
	"math"
	"time"

	"github.com/aplite/aplite/vector"
)

// inferValue maps a JSON-decoded request value to an APL type and value.
func inferValue(v any) (vector.Type, any) {
	switch x := v.(type) {
	case nil:
		return vector.Dynamic, nil
	case bool:
		return vector.Bool, x
	case int:
		return vector.Int, int64(x)
	case int64:
		return vector.Int, x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return vector.Int, int64(x)
		}
		return vector.Float, x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return vector.Int, i
		}
		f, _ := x.Float64()
		return vector.Float, f
	case string:
		return vector.String, x
	case time.Time:
		return vector.DateTime, x.UTC()
	case time.Duration:
		return vector.TimeSpan, x
	}
	return vector.Dynamic, vector.JSONNumbers(v)
}
