package parquet

import (
	"encoding/binary"
	"math"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/aplite/aplite/core/store"
)

// RowGroupStats describes row group i by its footer statistics alone, so
// a scan can skip it unread: the _time range in ns (the whole int64 range
// when the file does not say) and, for each kept leaf other than _time
// that holds a value, its null count and, where the file records them,
// its min and max as the engine compares them (int64 for integers and
// times in ns, float64, string). A leaf with only nulls is left out, as
// a stored part has no column for a field none of its events set.
func (f *File) RowGroupStats(i int) (lo, hi int64, cols []store.ColumnMeta) {
	err := contain("statistics", func() error {
		lo, hi, cols = f.rowGroupStats(i)
		return nil
	})
	if err != nil { // statistics that do not read rule nothing out
		return math.MinInt64, math.MaxInt64, nil
	}
	return lo, hi, cols
}

func (f *File) rowGroupStats(i int) (lo, hi int64, cols []store.ColumnMeta) {
	md := f.pf.Metadata().RowGroups[i]
	lo, hi = math.MinInt64, math.MaxInt64
	for _, l := range f.leaves {
		ci := l.col.Index()
		if ci < 0 || ci >= len(md.Columns) {
			continue
		}
		cs := md.Columns[ci].MetaData.Statistics
		mn, mx, ok := l.bounds(cs)
		if l.name == store.TimeField {
			if ok && l.unit != 0 {
				lo, hi = mn.(int64), mx.(int64)
			}
			continue
		}
		if cs.NullCount == md.NumRows && len(cs.MinValue) == 0 {
			continue
		}
		cm := store.ColumnMeta{Key: store.ColKey{Name: l.name, Type: l.vectorType()}, NullCount: int(cs.NullCount)}
		if ok {
			cm.Min, cm.Max = mn, mx
		}
		cols = append(cols, cm)
	}
	return lo, hi, cols
}

// bounds decodes a leaf's min and max statistics; ok is false when the
// file records none or they are not values the engine compares.
func (l leaf) bounds(cs format.Statistics) (lo, hi any, ok bool) {
	mn, mx := cs.MinValue, cs.MaxValue
	if len(mn) == 0 || len(mx) == 0 {
		return nil, nil, false
	}
	scale := int64(1)
	switch {
	case l.date:
		scale = int64(24 * time.Hour)
	case l.unit != 0:
		scale = int64(l.unit)
	}
	u32 := func(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
	u64 := func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
	switch l.col.Type().Kind() {
	case pq.Int32:
		if len(mn) == 4 && len(mx) == 4 {
			return int64(int32(u32(mn))) * scale, int64(int32(u32(mx))) * scale, true
		}
	case pq.Int64:
		if len(mn) == 8 && len(mx) == 8 {
			return int64(u64(mn)) * scale, int64(u64(mx)) * scale, true
		}
	case pq.Float:
		if len(mn) == 4 && len(mx) == 4 {
			return float64(math.Float32frombits(u32(mn))), float64(math.Float32frombits(u32(mx))), true
		}
	case pq.Double:
		if len(mn) == 8 && len(mx) == 8 {
			return math.Float64frombits(u64(mn)), math.Float64frombits(u64(mx)), true
		}
	case pq.ByteArray:
		if l.unit == 0 && !l.date {
			return string(mn), string(mx), true
		}
	}
	return nil, nil, false
}
