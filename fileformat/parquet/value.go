package parquet

import (
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// refs caches, per leaf, the builder's handle of its column, so a row
// group of 64Ki rows costs one map lookup per column instead of one per
// value. A leaf's handle is made at its first non-null value: a column
// that is null throughout a row group is not stored, as before.
type refs []int

func newRefs(n int) refs {
	r := make(refs, n)
	for i := range r {
		r[i] = -1
	}
	return r
}

// set stores v, the value of leaf l in the current event.
func (r refs) set(b *store.RowsBuilder, j int, l leaf, v pq.Value) {
	if v.IsNull() {
		return
	}
	var ns int64
	isTime := l.unit != 0 || l.date
	if isTime {
		switch v.Kind() {
		case pq.Int32:
			ns = int64(v.Int32())
		default:
			ns = v.Int64()
		}
		if l.date {
			ns *= int64(24 * time.Hour)
		} else {
			ns *= int64(l.unit)
		}
	}
	if l.name == store.TimeField {
		switch {
		case isTime:
			b.SetTime(ns)
		case v.Kind() == pq.ByteArray:
			if t, err := time.Parse(time.RFC3339Nano, string(v.ByteArray())); err == nil {
				b.SetTime(t.UnixNano())
			}
		}
		return
	}
	// A leaf's physical type is fixed, so its vector type is too.
	typ := vector.String
	switch {
	case isTime:
		typ = vector.DateTime
	case v.Kind() == pq.Boolean:
		typ = vector.Bool
	case v.Kind() == pq.Int32 || v.Kind() == pq.Int64:
		typ = vector.Int
	case v.Kind() == pq.Float || v.Kind() == pq.Double:
		typ = vector.Float
	}
	if r[j] < 0 {
		r[j] = b.Ref(store.ColKey{Name: l.name, Type: typ})
	}
	switch typ {
	case vector.DateTime:
		b.SetIntAt(r[j], ns)
	case vector.Bool:
		b.SetBoolAt(r[j], v.Boolean())
	case vector.Int:
		if v.Kind() == pq.Int32 {
			b.SetIntAt(r[j], int64(v.Int32()))
		} else {
			b.SetIntAt(r[j], v.Int64())
		}
	case vector.Float:
		if v.Kind() == pq.Float {
			b.SetFloatAt(r[j], float64(v.Float()))
		} else {
			b.SetFloatAt(r[j], v.Double())
		}
	default:
		b.SetStringAt(r[j], string(v.ByteArray()))
	}
}
