package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// ParseLabels decodes an X-Axiom-Event-Labels header value: a JSON object
// whose fields are added to every event. Numbers follow the event rule
// (integers are int64, the rest float64). An empty value means no labels.
func ParseLabels(header string) (map[string]any, error) {
	if strings.TrimSpace(header) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(header))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("invalid event labels: %w", err)
	}
	if m == nil || dec.More() {
		return nil, fmt.Errorf("invalid event labels: want one JSON object")
	}
	return vector.JSONNumbers(m).(map[string]any), nil
}

// SplitCSVFields splits an X-Axiom-CSV-Fields header value into column
// names; an empty value yields nil (the body has a header row).
func SplitCSVFields(header string) []string {
	if strings.TrimSpace(header) == "" {
		return nil
	}
	parts := strings.Split(header, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// ParseCSVDelimiter reads the csv-delimiter query parameter: empty means
// ',', otherwise exactly one character (the two-character spelling \t is
// accepted for a tab, since it is hard to put a raw tab in a URL by hand).
func ParseCSVDelimiter(s string) (rune, error) {
	switch s {
	case "":
		return ',', nil
	case `\t`:
		return '\t', nil
	}
	r, n := utf8.DecodeRuneInString(s)
	if n != len(s) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' {
		return 0, fmt.Errorf("invalid csv-delimiter %q: want one character other than a quote or a line break", s)
	}
	return r, nil
}

// label is one flattened label value, applied to each event at begin.
type label struct {
	id  int32
	val any // nil, bool, int64, float64, string, []any or map[string]any
}

// setLabels flattens the labels into d.labels, in key order so column
// order does not depend on map iteration.
func (d *decoder) setLabels(m map[string]any) error {
	d.labels = d.labels[:0]
	return d.flattenLabels(-1, m, 1)
}

func (d *decoder) flattenLabels(parent int32, m map[string]any, depth int) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		id := d.f.lookup(parent, []byte(k))
		v, err := labelValue(m[k])
		if err != nil {
			return fmt.Errorf("event label %q: %w", k, err)
		}
		if obj, ok := v.(map[string]any); ok && len(obj) > 0 && !d.f.nodes[id].isMap {
			if depth+1 > d.o.MaxDepth {
				return fmt.Errorf("event label %q nests deeper than the limit of %d levels", k, d.o.MaxDepth)
			}
			if err := d.flattenLabels(id, obj, depth+1); err != nil {
				return err
			}
			continue
		}
		d.labels = append(d.labels, label{id: id, val: v})
	}
	return nil
}

// labelValue normalizes a label value from a caller's map to the dynamic
// value types.
func labelValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return v, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return float64(x), nil
		}
		return int64(x), nil
	case float32:
		return float64(x), nil
	case json.Number:
		return vector.JSONNumbers(x), nil
	case json.RawMessage:
		var out any
		dec := json.NewDecoder(bytes.NewReader(x))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			return nil, err
		}
		return labelValue(vector.JSONNumbers(out))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := labelValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := labelValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// setLabel stores one label in the current event.
func (d *decoder) setLabel(l *label) {
	switch x := l.val.(type) {
	case nil:
		d.setNull(l.id)
	case bool:
		d.setBool(l.id, x)
	case int64:
		d.setInt(l.id, x)
	case float64:
		d.setFloat(l.id, x)
	case string:
		d.setLabelString(l.id, x)
	default:
		d.setDynamic(l.id, x)
	}
}

// setLabelString is setString for a string that is already a Go string.
func (d *decoder) setLabelString(id int32, s string) {
	n := &d.f.nodes[id]
	if n.isTime {
		d.timeFromString(n, []byte(s))
		if !n.keep {
			return
		}
	}
	if r := d.column(id, vector.String); r >= 0 {
		d.b.SetStringAt(r, s)
	}
}
