package ingest

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// The set* methods store one value of node id in the current event. The
// timestamp field is parsed into the event time instead (and stored as a
// field too when it is not _time itself).

func (d *decoder) setString(id int32, b []byte) {
	n := &d.f.nodes[id]
	if n.isTime {
		d.timeFromString(n, b)
		if !n.keep {
			return
		}
	}
	if r := d.column(id, vector.String); r >= 0 {
		n := &d.f.nodes[id]
		if n.isTime {
			d.b.SetStringAt(r, d.a.str(b)) // timestamps rarely repeat
			return
		}
		if n.cache == nil {
			n.cache = new(strCache)
		}
		d.b.SetStringAt(r, n.cache.get(b, &d.a))
	}
}

// setCached stores a value the field's cache found in the input; the
// cache is only made for fields that are not the timestamp field.
func (d *decoder) setCached(id int32, s string) {
	if r := d.column(id, vector.String); r >= 0 {
		d.b.SetStringAt(r, s)
	}
}

func (d *decoder) setInt(id int32, x int64) {
	n := &d.f.nodes[id]
	if n.isTime {
		if ns, ok := epochInt(x); ok {
			d.b.SetTime(ns)
		} else {
			d.fail(fmt.Sprintf("cannot use %s value %d as a time: out of range", n.path, x))
		}
		if !n.keep {
			return
		}
	}
	if r := d.column(id, vector.Int); r >= 0 {
		d.b.SetIntAt(r, x)
	}
}

func (d *decoder) setFloat(id int32, x float64) {
	n := &d.f.nodes[id]
	if n.isTime {
		if ns, ok := epochFloat(x); ok {
			d.b.SetTime(ns)
		} else {
			d.fail(fmt.Sprintf("cannot use %s value %v as a time: out of range", n.path, x))
		}
		if !n.keep {
			return
		}
	}
	if r := d.column(id, vector.Float); r >= 0 {
		d.b.SetFloatAt(r, x)
	}
}

func (d *decoder) setBool(id int32, x bool) {
	n := &d.f.nodes[id]
	if n.isTime {
		d.fail(fmt.Sprintf("cannot use %s value %v as a time", n.path, x))
		if !n.keep {
			return
		}
	}
	if r := d.column(id, vector.Bool); r >= 0 {
		d.b.SetBoolAt(r, x)
	}
}

// setNull stores an explicit null. A null timestamp field counts as absent:
// the event gets the ingest time.
func (d *decoder) setNull(id int32) {
	n := &d.f.nodes[id]
	if n.isTime && !n.keep {
		return
	}
	if r := d.column(id, vector.Null); r >= 0 {
		d.b.SetNullAt(r)
	}
}

// setDynamic stores an array, a map field's object or an empty object.
func (d *decoder) setDynamic(id int32, x any) {
	n := &d.f.nodes[id]
	if n.isTime {
		d.fail(fmt.Sprintf("cannot use %s value of type %s as a time", n.path, kindOf(x)))
		if !n.keep {
			return
		}
	}
	if r := d.column(id, vector.Dynamic); r >= 0 {
		d.b.SetDynamicAt(r, x)
	}
}

// timeFromString parses a string timestamp field into the event time.
func (d *decoder) timeFromString(n *node, b []byte) {
	auto := d.o.TimestampFormat == ""
	if auto {
		if ns, ok := d.hours.parse(b); ok {
			d.b.SetTime(ns)
			return
		}
	}
	ns, err := parseTime(b, d.o.TimestampFormat)
	if err != nil {
		d.fail(fmt.Sprintf("cannot parse %s value %q as a time: %v", n.path, clip(string(b)), err))
		return
	}
	if auto {
		d.hours.fill(b)
	}
	d.b.SetTime(ns)
}

// kindOf names the JSON type of a decoded value for error messages.
func kindOf(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}
